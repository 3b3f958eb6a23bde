"""psycopg connections that wait for the server on the event loop, without blocking it.

psycopg runs every operation as a generator that says what it waits for (the socket readable,
writable) and leaves the waiting to `Connection.wait`, so that each way of running (threads,
asyncio) can wait its own way. `LoopConnection.wait`, in code run by SQLAlchemy's
`greenlet_spawn` on the event loop, goes on at once while the socket is ready (a queued
statement of a pipeline: psycopg's own wait polls it, without waiting) and otherwise hands the
wait to the loop (`await_`), which meanwhile serves other chats. So plain, synchronous
gateway code runs on the loop, with no worker-thread hop, and its waits for the server cost the
loop nothing. Elsewhere it waits as psycopg's own connection does.
"""

from __future__ import annotations

import asyncio
from typing import Any, TypeVar

import psycopg
from psycopg import waiting
from psycopg.abc import PQGen
from sqlalchemy.util import await_
from sqlalchemy.util.concurrency import in_greenlet

RV = TypeVar("RV")


class LoopConnection(psycopg.Connection[Any]):
    """A psycopg connection whose waits, in `greenlet_spawn`, leave the event loop free."""

    def wait(self, gen: PQGen[RV], interval: float = 0.1, timeout: float | None = None) -> RV:
        if timeout is not None or not in_greenlet():
            return super().wait(gen, interval, timeout)
        fileno = self.pgconn.socket
        # psycopg's own wait (in C) polls without waiting (interval 0); what is not ready yet
        # is waited for on the loop (`_on_loop`).
        return waiting.wait(_on_loop(gen, fileno), fileno, interval=0.0)


def _on_loop(gen: PQGen[RV], fileno: int) -> PQGen[RV]:
    """`gen`, but where the socket was not ready for what it waits for (`READY_NONE`), the
    event loop waits until it is."""
    try:
        state = next(gen)
        while True:
            ready = yield state
            if not ready:
                ready = await_(_ready(fileno, state))
            state = gen.send(ready)
    except StopIteration as done:
        result: RV = done.value
        return result


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


def connect(_dialect: Any, _record: Any, cargs: Any, cparams: Any) -> LoopConnection:
    """SQLAlchemy's `do_connect` hook: the engine's connections are `LoopConnection`s."""
    return LoopConnection.connect(*cargs, **cparams)
