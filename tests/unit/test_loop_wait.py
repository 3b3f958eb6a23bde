"""`storage.loop_wait`: a psycopg-style generator's waits, run on the event loop. A socket pair
stands in for the server: what is ready goes on at once, what is not waits on the loop, which
meanwhile runs other tasks."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Generator

from psycopg import waiting
from sqlalchemy.util import greenlet_spawn

from storage.loop_wait import _on_loop


def read_one(sock: socket.socket, steps: list[str]) -> Generator[int, int, bytes]:
    """As psycopg's generators do: say what it waits for, then act on what is ready."""
    while not (yield waiting.WAIT_W):
        continue
    steps.append("written")
    sock.send(b"?")
    while not (yield waiting.WAIT_R):
        continue
    steps.append("read")
    return sock.recv(1)


def drive(sock: socket.socket, steps: list[str]) -> bytes:
    """`read_one` as `LoopConnection.wait` drives a generator (in `greenlet_spawn`)."""
    fileno = sock.fileno()
    return waiting.wait(_on_loop(read_one(sock, steps), fileno), fileno, interval=0.0)


async def test_what_is_not_ready_is_waited_for_on_the_loop() -> None:
    ours, server = socket.socketpair()
    ours.setblocking(False)
    steps: list[str] = []
    reading = asyncio.ensure_future(greenlet_spawn(drive, ours, steps))
    for _ in range(5):  # the loop turns while the generator waits for its answer
        await asyncio.sleep(0.01)
    assert steps == ["written"] and not reading.done()
    assert server.recv(1) == b"?"
    server.send(b"!")
    assert await asyncio.wait_for(reading, 5) == b"!"
    assert steps == ["written", "read"]
    ours.close()
    server.close()


async def test_what_is_ready_goes_on_without_the_loop() -> None:
    """The answer is there already: the generator ends without handing the loop a wait."""
    ours, server = socket.socketpair()
    ours.setblocking(False)
    server.send(b"!")
    waits = 0
    loop = asyncio.get_running_loop()
    add_reader = loop.add_reader

    def counted(*args: object) -> None:
        nonlocal waits
        waits += 1
        add_reader(*args)  # type: ignore[arg-type]

    loop.add_reader = counted  # type: ignore[method-assign]
    try:
        result = await greenlet_spawn(drive, ours, [])
    finally:
        loop.add_reader = add_reader  # type: ignore[method-assign]
    assert result == b"!" and waits == 0
    ours.close()
    server.close()
