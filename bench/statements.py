"""``core_per_hand`` and ``pg_core_per_hand``: the Core executions a recorded hand runs.

A Core execution is a statement the code asks for (``Connection.execute``: what SQLAlchemy's
``before_execute`` event sees), however many rows it carries; BEGIN and COMMIT are not. The
three games' cycles (``bench.workload``: mahjong hands with kongs, 510K reports, free rounds)
are played once through the product Application, one update at a time, in fresh chats: the
first hands of a season carry a player's first 门清 reminder. The figure is the most any hand
ran; the detail has the median and every command's count (``python -m bench.profile sql``
prints the same with the statements the database ran).
"""

from __future__ import annotations

import asyncio
import statistics
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from bench.harness import Message, bot_driver, migrated_engine, players
from bench.workload import chats_of, seating, tables

NOT_HANDS = ("/gang", "/pay", "/standings", "/history")  # a kong, a transfer, reads


class CoreCounter:
    """Counts the Core executions on an engine's connections."""

    def __init__(self, engine: Engine) -> None:
        self.executions = 0
        event.listen(engine, "before_execute", self._executed)

    def _executed(self, *_args: Any) -> None:
        self.executions += 1

    def take(self) -> int:
        found, self.executions = self.executions, 0
        return found


async def _per_command(url: str) -> list[tuple[str, int]]:
    engine = migrated_engine(url)
    core = CoreCounter(engine)
    tabs = tables(3)
    bot = await bot_driver(engine, url, chats_of(tabs))
    counts: list[tuple[str, int]] = []
    try:
        for table in tabs:
            for message in seating(table):
                await bot.say(message)
            user = players(table.index)[0]
            for text in table.cycle:
                core.take()
                await bot.say(Message(table.chat, user, text))
                counts.append((text, core.take()))
    finally:
        await bot.close()
        engine.dispose()
    return counts


def measure_core(url: str) -> dict[str, Any]:
    """The Core executions of each recorded hand of the cycles, on the database at `url`."""
    counts = asyncio.run(_per_command(url))
    hands = [n for text, n in counts if not text.startswith(NOT_HANDS)]
    return {
        "max": max(hands),
        "median": statistics.median(hands),
        "per_command": counts,
    }
