"""What a database holds, in two figures (the console says it when it opens one)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.engine import Connection

from scoring.games import EventKind
from storage.models import chat, event


def chats_and_hands(db: Connection) -> tuple[int, int]:
    """The number of chats, and of hands recorded and not undone, over every season."""
    chats = select(func.count()).select_from(chat).scalar_subquery()
    live = event.c.kind == EventKind.HAND.value, event.c.undone_by.is_(None)
    hands = select(func.count()).select_from(event).where(*live).scalar_subquery()
    found = db.execute(select(chats, hands)).one()
    return int(found[0]), int(found[1])
