"""What a database holds, in two figures (the console says it when it opens one)."""

from __future__ import annotations

from scoring.games import EventKind
from storage.sql import Sql


def chats_and_hands(db: Sql) -> tuple[int, int]:
    """The number of chats, and of hands recorded and not undone, over every season."""
    row = db.row(
        "SELECT (SELECT count(*) FROM chat),"
        " (SELECT count(*) FROM event WHERE kind = ? AND undone_by IS NULL)",
        (EventKind.HAND.value,),
    )
    assert row is not None
    return int(row[0]), int(row[1])
