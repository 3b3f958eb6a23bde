"""The balances over a season, for the Mini App's chart: the live hands' payments read narrowly
(no JSON, no exact fractions), and only the events since a known point when extending."""

from __future__ import annotations

from scoring.games import EventKind
from storage.sql import Sql

Payment = tuple[int, str, int, int | None, int | None, str | None]


def live_payments(db: Sql, season_id: int, after_seq: int = 0) -> list[Payment]:
    """The season's live hands after event `after_seq`, in order, each with its payments:
    `(seq, game, hand number, payer id, payee id, amount as text)`; a hand without payments
    has one row with None for them."""
    return db.rows(
        "SELECT e.seq, e.game, e.hand_no, t.payer_id, t.payee_id, t.amount FROM event e"
        " LEFT JOIN transfer t ON t.event_id = e.id"
        " WHERE e.season_id = ? AND e.kind = ? AND e.undone_by IS NULL AND e.seq > ?"
        " ORDER BY e.seq, t.id",
        (season_id, EventKind.HAND.value, after_seq),
    )


def kinds_since(db: Sql, chat_id: int, seq: int) -> list[tuple[int, str]]:
    """The chat's events after event `seq`: `(seq, kind)`, oldest first."""
    return db.rows(
        "SELECT seq, kind FROM event WHERE chat_id = ? AND seq > ? ORDER BY seq", (chat_id, seq)
    )
