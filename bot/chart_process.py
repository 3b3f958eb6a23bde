"""/chart's picture drawn in a process of its own. matplotlib holds the GIL while it draws
(~0.5 s): in a worker thread that would stall the event loop, and every other chat with it.
The process starts at the first /chart (an idle bot never loads matplotlib) and is reused; if
it dies, the next picture starts another."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from service.replies import ChartData

_pool: list[ProcessPoolExecutor] = []  # the one drawing process, once started


def draw(
    data: ChartData, title: str, unit_titles: Mapping[str, str], xlabel: str, empty: str
) -> bytes:
    """The PNG (blocking; runs in the drawing process)."""
    from bot.chart import render_chart

    return render_chart(data, title, unit_titles=unit_titles, xlabel=xlabel, empty=empty)


async def draw_apart(data: ChartData, *texts: Any) -> bytes:
    """`draw` in the drawing process, awaited without blocking the loop."""
    if not _pool:
        _pool.append(ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")))
    try:
        return await asyncio.get_running_loop().run_in_executor(_pool[0], draw, data, *texts)
    except BrokenProcessPool:
        _pool.clear()  # the next /chart starts another process; this one draws here
        return await asyncio.to_thread(draw, data, *texts)
