"""Issue 41: a worker's listening connection (`storage.notify`) outlives a PostgreSQL restart: it
listens again by itself, says so (None: look at every chat again, something may have been
missed while it was down), and hears the writes committed after."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from storage.notify import Notices
from tests.conftest import migrated
from tests.integration.helpers import Chat
from tests.reliability.pgserver import PgServer

pytestmark = pytest.mark.slow
CHAT = -100_990_000_001


async def heard(listening: AsyncGenerator[int | None], timeout: float) -> int | None:
    async with asyncio.timeout(timeout):
        return await anext(listening)


async def test_listening_again_after_a_postgres_restart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("storage.notify.PING", 1.0)  # a quiet connection checked each second
    server = PgServer().start()
    try:
        with migrated(server.url) as engine:
            listening = Notices(engine).listen()
            assert await heard(listening, 10) is None
            chat = Chat(engine, CHAT)
            chat.seat("mahjong", "A", "B", "C", "D")
            assert [await heard(listening, 10), await heard(listening, 10)] == [CHAT, CHAT]
            await asyncio.to_thread(server.restart, 1.0)
            assert await heard(listening, 40) is None  # listening again: look at everything
            Chat(engine, CHAT).say("A", "/hu A zimo")
            assert await heard(listening, 10) == CHAT
            await listening.aclose()
    finally:
        server.stop()
