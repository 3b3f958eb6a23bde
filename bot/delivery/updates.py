"""Chats in parallel, each chat's updates in order (a hand before its /undo); the signals that
stop the serving loops."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import AsyncIterator

from telegram import Update


class ChatLocks:
    """One lock per chat; a chat's lock is forgotten when nobody holds or waits for it."""

    def __init__(self) -> None:
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}

    @contextlib.asynccontextmanager
    async def hold(self, chat_id: int | None) -> AsyncIterator[None]:
        if chat_id is None:
            yield
            return
        lock = self._locks.setdefault(chat_id, asyncio.Lock())
        self._users[chat_id] = self._users.get(chat_id, 0) + 1
        try:
            async with lock:
                yield
        finally:
            self._users[chat_id] -= 1
            if not self._users[chat_id]:
                del self._users[chat_id], self._locks[chat_id]

    def __len__(self) -> int:
        return len(self._locks)


def chat_of(update: Update) -> int | None:
    """The chat whose lock (and order) an update takes; None: none (processed at once)."""
    return update.effective_chat.id if update.effective_chat else None


async def stop_on_signals() -> asyncio.Event:
    """An event set by SIGINT or SIGTERM: the serving loops end when it is."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    return stop
