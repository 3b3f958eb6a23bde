"""A history played through the full path into an SQLite file, and the file copied: the small
database of ``bench.standings`` and ``bench.commands``, before the copy is replicated big."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from bench.harness import Message, bot_driver, migrated_engine
from bench.path import recorded_hands
from bench.product import Chat
from bench.workload import hand_count


async def play(path: Path, messages: list[Message], chats: Sequence[Chat]) -> None:
    """Send `messages` to a bot on the SQLite file at `path`; every hand must be recorded."""
    url = f"sqlite:///{path}"
    engine = migrated_engine(url)
    try:
        driver = await bot_driver(engine, url, chats)
        try:
            await driver.run(driver.prepare(messages))
        finally:
            await driver.close()
        played = recorded_hands(engine)
    finally:
        engine.dispose()
    if played != hand_count(messages):
        raise RuntimeError(f"history: {played} of {hand_count(messages)} hands recorded")


def copy_database(source: Path, target: Path) -> None:
    """A copy of an SQLite file (its backup API: consistent, whatever is open)."""
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
