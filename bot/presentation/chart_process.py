"""/chart's picture drawn in a process of its own. matplotlib holds the GIL while it draws
(~0.5 s): in a worker thread that would stall the event loop, and every other chat with it.
The process starts at the first /chart (an idle bot never loads matplotlib), is reused while
pictures are asked for, and ends after `IDLE_S` without one: its ~80–150 MB go back to the
machine. If it dies, the picture is drawn here and the next one starts another process."""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable, Mapping
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from service.replies import Card, ChartData

IDLE_S = 300.0  # the drawing process ends after this long without a picture


def draw(
    data: ChartData, title: str, unit_titles: Mapping[str, str], xlabel: str, empty: str
) -> bytes:
    """The PNG (blocking; runs in the drawing process)."""
    from bot.presentation.chart import render_chart

    return render_chart(data, title, unit_titles=unit_titles, xlabel=xlabel, empty=empty)


def draw_card(card: Card, lang: str) -> bytes:
    """The night's or the season's card as PNG (blocking; runs in the drawing process)."""
    from bot.presentation.card import render_card

    return render_card(card, lang)


class Drawer:
    """The drawing process: started by the first picture, ended `idle_s` after the last."""

    def __init__(self, idle_s: float = IDLE_S) -> None:
        self.idle_s = idle_s
        self.pool: ProcessPoolExecutor | None = None
        self.drawing = 0  # pictures under way
        self._retiring: asyncio.TimerHandle | None = None

    async def draw(self, data: ChartData, *texts: Any) -> bytes:
        """`draw` in the drawing process, awaited without blocking the loop."""
        return await self.run(draw, data, *texts)

    async def run(self, work: Callable[..., bytes], *args: Any) -> bytes:
        """`work(*args)` (a picture) in the drawing process, awaited without blocking."""
        loop = asyncio.get_running_loop()
        if self._retiring is not None:
            self._retiring.cancel()
            self._retiring = None
        if self.pool is None:
            self.pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        self.drawing += 1
        try:
            return await loop.run_in_executor(self.pool, work, *args)
        except BrokenProcessPool:
            self.pool = None  # the next picture starts another process; this one draws here
            return await asyncio.to_thread(work, *args)
        finally:
            self.drawing -= 1
            if self.drawing == 0 and self.pool is not None:
                self._retiring = loop.call_later(self.idle_s, self.retire)

    def retire(self) -> None:
        """End the drawing process unless a picture is under way (it ends by itself)."""
        self._retiring = None
        if self.pool is not None and self.drawing == 0:
            self.pool.shutdown(wait=False)
            self.pool = None


_drawer = Drawer()


async def draw_apart(data: ChartData, *texts: Any) -> bytes:
    """`draw` in the bot's drawing process."""
    return await _drawer.draw(data, *texts)


async def draw_card_apart(card: Card, lang: str) -> bytes:
    """`draw_card` in the bot's drawing process."""
    return await _drawer.run(draw_card, card, lang)
