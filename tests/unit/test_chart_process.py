"""/chart's drawing process: started by the first picture, reused, and ended when idle."""

from __future__ import annotations

import asyncio
import os
import time

from bot.presentation.chart_process import Drawer
from tests.unit.test_chart import data

PNG = b"\x89PNG"
TEXTS = ("Season 1", {"mahjong": "Mahjong points"}, "hands", "No hands")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as stat:  # a zombie has ended
        return stat.read().split()[2] != "Z"


def worker_pids(drawer: Drawer) -> set[int]:
    assert drawer.pool is not None
    return set(drawer.pool._processes)  # the executor's workers, by pid (not public)


async def gone(pids: set[int], within: float = 10.0) -> bool:
    deadline = time.monotonic() + within
    while any(alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        await asyncio.sleep(0.05)
    return True


def test_the_process_is_reused_then_ends_when_idle_and_a_new_one_draws_after() -> None:
    async def evening() -> None:
        drawer = Drawer(idle_s=0.5)
        assert drawer.pool is None  # nothing started before the first picture
        first, second = await asyncio.gather(
            drawer.draw(data(), *TEXTS), drawer.draw(data(), *TEXTS)
        )
        assert first.startswith(PNG) and second.startswith(PNG)
        pids = worker_pids(drawer)
        assert len(pids) == 1 and all(alive(pid) for pid in pids)
        assert (await drawer.draw(data(), *TEXTS)).startswith(PNG)
        assert worker_pids(drawer) == pids  # reused within the idle time
        await asyncio.sleep(0.8)
        assert drawer.pool is None and await gone(pids)
        assert (await drawer.draw(data(), *TEXTS)).startswith(PNG)  # a new process draws
        assert worker_pids(drawer).isdisjoint(pids)
        drawer.retire()

    asyncio.run(evening())
