"""A write refused for space (SQLITE_FULL): before the update is tried again, the WAL is folded
back into the database and emptied (`storage.disk.make_room`), and the log says how much space
the database needs, so that an operator knows what to free. The update itself waits and is
retried as any transient failure (`bot.delivery.transient`)."""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy.engine import Engine

from bot.ptb_types import AnyApplication
from storage import disk

log = logging.getLogger(__name__)


async def make_room(application: AnyApplication) -> None:
    """Checkpoint the WAL (TRUNCATE) and log what the disk holds and the database needs."""
    engine: Engine = application.bot_data["service"].engine
    try:
        line = await asyncio.to_thread(_make_room, engine)
    except Exception as error:  # the disk or the file is in a worse state: said, not raised
        log.warning("disk full: could not measure or checkpoint the database: %s", error)
        return
    if line:
        log.warning(line)


def _make_room(engine: Engine) -> str | None:
    if disk.room(engine) is None:
        return None
    folded = disk.make_room(engine)
    after = disk.room(engine)
    if folded:
        return f"disk full: the WAL was folded back into the database and emptied; {after}"
    return f"disk full: the WAL could not be folded back (no room for it); {after}"
