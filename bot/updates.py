"""Concurrent updates, one chat at a time: chats proceed in parallel, a chat's own updates
keep their order (a hand before its /undo)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import Any

from telegram import Update
from telegram.ext import BaseUpdateProcessor


class PerChatProcessor(BaseUpdateProcessor):
    """Runs up to `max_concurrent_updates` updates at once, serialised per chat."""

    def __init__(self, max_concurrent_updates: int = 32) -> None:
        super().__init__(max_concurrent_updates)
        self._locks: dict[int, asyncio.Lock] = {}
        self._users: dict[int, int] = {}

    async def do_process_update(self, update: object, coroutine: Awaitable[Any]) -> None:
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            await coroutine
            return
        lock = self._locks.setdefault(chat.id, asyncio.Lock())
        self._users[chat.id] = self._users.get(chat.id, 0) + 1
        try:
            async with lock:
                await coroutine
        finally:
            self._users[chat.id] -= 1
            if not self._users[chat.id]:  # forget idle chats: memory stays bounded
                del self._users[chat.id], self._locks[chat.id]

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""
