"""Near repeats waiting for an answer (`service.repeats`): the content of a hand typed again
with a difference, kept for [Replace #N] / [Record both]."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.engine import Connection

from storage.gateway import first
from storage.models import NearRepeatRow, near_repeat


def add_near(db: Connection, chat_id: int, event_id: int, same: Any, text: str) -> int:
    """Keep a near repeat of record `event_id`; its id names it in the question's buttons."""
    values = {"chat_id": chat_id, "event_id": event_id, "same": same, "text": text}
    found = db.execute(insert(near_repeat).values(**values).returning(near_repeat.c.id)).scalar()
    assert found is not None
    return int(found)


def near_by_id(db: Connection, near_id: int) -> NearRepeatRow | None:
    return first(NearRepeatRow, db.execute(select(near_repeat).where(near_repeat.c.id == near_id)))
