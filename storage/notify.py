"""Which chats' writes committed, told to every worker (the Mini App's open pages follow them:
`bot.miniapp.events`).

PostgreSQL: the writing transaction calls `pg_notify` on one channel with the chat's id; the
server delivers it at the commit (never for a rollback; twice in one transaction, once) to
every connection that listens, and each worker listens on one connection of its own (psycopg's
`AsyncConnection.notifies`), made again when it breaks. SQLite is one process: the unit of work
tells this process's listeners after the commit. A listener is first told None: "look at every
chat again" (the listening has just begun, or begun again after a break; anything may have
been missed).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.engine import Connection, Engine

log = logging.getLogger(__name__)
CHANNEL = "jifen_chat"  # one channel for every chat: the payload is the chat's id
PING = 30.0  # seconds a quiet listening connection waits before it checks it is alive
RETRY_MAX = 30.0  # seconds between tries to listen again, at most
_NOTIFY = select(func.pg_notify(CHANNEL, bindparam("chat", type_=None)))


class Notices:
    """One engine's notices of committed chat writes: `within` a write, `committed` after it,
    `listen` for them."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.postgres = engine.dialect.name == "postgresql"
        self._local = _LOCAL.setdefault(engine.url.render_as_string(), [])
        # the channel a write's own statement may notify instead of `within` ("": none)
        self.channel = CHANNEL if self.postgres else ""

    def within(self, db: Connection, chat_id: int) -> None:
        """In the writing transaction, before its commit (PostgreSQL: delivered at it)."""
        if self.postgres:
            db.execute(_NOTIFY, {"chat": str(chat_id)})

    def committed(self, chat_id: int) -> None:
        """After the commit (SQLite: this process's listeners, from any thread)."""
        if self.postgres:
            return
        for loop, queue in list(self._local):
            with contextlib.suppress(RuntimeError):  # its loop has closed
                loop.call_soon_threadsafe(queue.put_nowait, chat_id)

    async def listen(self) -> AsyncGenerator[int | None]:
        """The ids of chats whose writes committed, as they come (None: look at every chat
        again); until the caller stops iterating."""
        if self.postgres:
            async for chat_id in self._listen_postgres():
                yield chat_id
            return
        queue: asyncio.Queue[int | None] = asyncio.Queue()
        entry = (asyncio.get_running_loop(), queue)
        self._local.append(entry)
        try:
            yield None
            while True:
                yield await queue.get()
        finally:
            self._local.remove(entry)

    async def _listen_postgres(self) -> AsyncIterator[int | None]:
        import psycopg  # here: a bot on SQLite never loads it

        delay = 0.5
        while True:
            try:
                async with await psycopg.AsyncConnection.connect(
                    **connect_args(self.engine), autocommit=True
                ) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    delay = 0.5
                    yield None
                    while True:
                        async for note in conn.notifies(timeout=PING):
                            if note.payload.lstrip("-").isdigit():
                                yield int(note.payload)
                        await conn.execute("SELECT 1")  # quiet a while: still connected?
            except psycopg.Error as error:
                log.warning("not told of chats' changes (%s); again in %g s", error, delay)
            await asyncio.sleep(delay)
            delay = min(RETRY_MAX, delay * 2)


#: This process's listeners of each SQLite database (by its URL), whatever engine writes to it.
_LOCAL: dict[str, list[tuple[asyncio.AbstractEventLoop, asyncio.Queue[int | None]]]] = {}


def connect_args(engine: Engine) -> dict[str, Any]:
    """psycopg's keyword arguments for the engine's database (its URL's parts and query)."""
    url = engine.url
    args: dict[str, Any] = url.translate_connect_args(username="user", database="dbname")
    args.update({key: value for key, value in url.query.items() if isinstance(value, str)})
    return args
