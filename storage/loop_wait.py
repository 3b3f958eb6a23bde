"""psycopg connections that wait for the server on the event loop, without blocking it.

psycopg runs every operation as a generator that says what it waits for (the socket readable,
writable) and leaves the waiting to `Connection.wait`, so that each way of running (threads,
asyncio) can wait its own way. `LoopConnection.wait`, in code run by SQLAlchemy's
`greenlet_spawn` on the event loop, goes on at once while the socket is ready (a queued
statement of a pipeline: no wait) and otherwise hands the wait to the loop (`await_only`), which
meanwhile serves other chats. So plain, synchronous gateway code runs on the loop, with no
worker-thread hop, and its waits for the server cost the loop nothing. Elsewhere it waits as
psycopg's own connection does.
"""

from __future__ import annotations

import asyncio
import select
from typing import Any

import psycopg
from psycopg import waiting
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine
from sqlalchemy.pool import NullPool
from sqlalchemy.util import await_only
from sqlalchemy.util.concurrency import in_greenlet

_READABLE = select.POLLIN | select.POLLPRI | select.POLLERR | select.POLLHUP
_WRITABLE = select.POLLOUT | select.POLLERR | select.POLLHUP


class LoopConnection(psycopg.Connection[Any]):
    """A psycopg connection whose waits, in `greenlet_spawn`, leave the event loop free."""

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        if timeout is not None or not in_greenlet():
            return super().wait(gen, interval, timeout)
        fileno = self.pgconn.socket
        poll = select.poll()
        try:
            state = next(gen)
            while True:
                ready = _ready_now(poll, fileno, state) or await_only(_ready(fileno, state))
                state = gen.send(ready)
        except StopIteration as done:
            return done.value


def _ready_now(poll: select.poll, fileno: int, state: int) -> int:
    """What the socket is ready for now, of what `state` waits for (0: nothing yet)."""
    mask = (_READABLE if state & waiting.WAIT_R else 0) | (
        _WRITABLE if state & waiting.WAIT_W else 0
    )
    poll.register(fileno, mask)
    events = poll.poll(0)
    ready = 0
    for _, event_mask in events:
        if state & waiting.WAIT_R and event_mask & _READABLE:
            ready |= waiting.READY_R
        if state & waiting.WAIT_W and event_mask & _WRITABLE:
            ready |= waiting.READY_W
    return ready


async def _ready(fileno: int, state: int) -> int:
    """Wait on the loop until the socket is ready for what `state` waits for."""
    loop = asyncio.get_running_loop()
    woken: asyncio.Future[int] = loop.create_future()

    def wake(ready: int) -> None:
        if not woken.done():
            woken.set_result(ready)

    if state & waiting.WAIT_R:
        loop.add_reader(fileno, wake, waiting.READY_R)
    if state & waiting.WAIT_W:
        loop.add_writer(fileno, wake, waiting.READY_W)
    try:
        return await woken
    finally:
        if state & waiting.WAIT_R:
            loop.remove_reader(fileno)
        if state & waiting.WAIT_W:
            loop.remove_writer(fileno)


def loop_engine(engine: Engine) -> Engine:
    """An engine on `engine`'s PostgreSQL database whose connections are `LoopConnection`s,
    made when asked (no pool: its one user keeps its connection)."""
    loop = create_engine(engine.url, poolclass=NullPool)

    @event.listens_for(loop, "do_connect")
    def _connect(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> LoopConnection:
        return LoopConnection.connect(*cargs, **cparams)

    return loop
