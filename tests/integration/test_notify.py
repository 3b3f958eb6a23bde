"""Issue 41, point 2 at the storage's level, on both databases: a chat's committed write is told
to every listener (another worker's too: a service of its own), once it committed; a dry run,
a write that fails, a read tell nothing."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator

import pytest
from sqlalchemy.engine import Engine

from service.core import Service
from storage.notify import Notices, connect_args
from storage.unit_of_work import ChatWrite
from tests.integration.helpers import Chat

WAIT = 5.0


async def heard(listening: AsyncIterator[int | None], timeout: float = WAIT) -> int | None:
    async with asyncio.timeout(timeout):
        return await anext(listening)


async def test_a_committed_write_is_told_to_every_worker_listening(
    engine: Engine, chat_id: int
) -> None:
    chat = Chat(engine, chat_id, admins=("老王",))  # worker A writes
    workers = [Notices(engine), Service(engine).uow.notices]  # B and C listen
    listening: list[AsyncGenerator[int | None]] = [worker.listen() for worker in workers]
    for each in listening:
        assert await heard(each) is None  # listening: look at every chat first
    chat.seat("mahjong", "老王", "小李", "阿芳", "大刘")  # /new and /seats: two writes
    for each in listening:
        assert [await heard(each), await heard(each)] == [chat_id, chat_id]
    with pytest.raises(RuntimeError), chat.service.uow.chat(chat_id, make=ChatWrite) as work:
        work.chat.stake = work.chat.stake  # a write that fails is rolled back
        raise RuntimeError("boom")
    with chat.service.uow.chat(chat_id, keep=False, make=ChatWrite):
        pass  # a dry run (the app's preview)
    chat.say("小李", "/standings")  # a read
    chat.say("小李", "/hu 老王 zimo")
    for each in listening:
        assert await heard(each) == chat_id  # the hand: the first thing told since
    for each in listening:
        with pytest.raises(TimeoutError):
            await heard(each, timeout=0.3)
        await each.aclose()


def test_the_listening_connection_is_the_engine_s_database(pg_engine: Engine) -> None:
    args = connect_args(pg_engine)
    url = pg_engine.url
    assert (args["host"], args["dbname"], args["user"]) == (url.host, url.database, url.username)
