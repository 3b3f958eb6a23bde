"""Chats in parallel, each chat's updates in order (a hand before its /undo)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


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
