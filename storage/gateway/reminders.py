"""Long hints given to a player once in a season (the 门清 reminder). Who had one is read with
the seated players (`ledger.seated`); a new one is written, and known new, in one statement."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.engine import Connection

from storage.gateway import Upsert
from storage.models import reminder

_REMIND = Upsert(
    reminder, lambda stmt: stmt.on_conflict_do_nothing().returning(reminder.c.player_id)
)


def first_reminders(db: Connection, season_id: int, hint: str, ids: Sequence[int]) -> set[int]:
    """Of `ids`, the players not given `hint` yet this season (a row written now); from now on
    they have been."""
    if not ids:
        return set()
    rows = [{"season_id": season_id, "hint": hint, "player_id": pid} for pid in sorted(set(ids))]
    return set(db.execute(_REMIND.of(db), rows).scalars())
