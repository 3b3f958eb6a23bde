"""Long hints given to a player once in a season (the 门清 reminder)."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import bindparam, select
from sqlalchemy.engine import Connection

from storage.gateway import Upsert
from storage.models import reminder

_REMINDED = select(reminder.c.player_id).where(
    reminder.c.season_id == bindparam("season_id"),
    reminder.c.hint == bindparam("hint"),
    reminder.c.player_id.in_(bindparam("ids", expanding=True)),
)
_REMIND = Upsert(reminder, lambda stmt: stmt.on_conflict_do_nothing())


def first_reminders(db: Connection, season_id: int, hint: str, ids: Sequence[int]) -> set[int]:
    """Of `ids`, the players not given `hint` yet this season; from now on they have been."""
    if not ids:
        return set()
    params = {"season_id": season_id, "hint": hint, "ids": list(ids)}
    new = set(ids) - set(db.execute(_REMINDED, params).scalars())
    if new:
        rows = [{"season_id": season_id, "hint": hint, "player_id": pid} for pid in sorted(new)]
        db.execute(_REMIND.of(db), rows)
    return new
