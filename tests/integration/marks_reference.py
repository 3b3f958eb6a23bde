"""The balance marks a season's ledger implies, written out independently of the product: what
`storage.gateway.marks.mark` writes as records are appended must equal this (the tests' oracle;
revision 0013 carries the same algorithm for existing seasons)."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Connection

from storage.gateway import marks

LEDGER = text(
    "SELECT e.id, e.seq, e.kind, e.game, e.undone_by, t.unit, t.payer_id, t.payee_id, t.amount"
    " FROM event e LEFT JOIN transfer t ON t.event_id = e.id WHERE e.season_id = :season"
    " ORDER BY e.seq, t.id"
)
RECORDS = ("hand", "pay")


def implied_marks(db: Connection, season_id: int) -> list[tuple[Any, ...]]:
    """(season, seq, unit, player, amount as stored, played) of every mark the season's ledger
    implies, one every `marks.MARK_EVERY` events."""
    balances: dict[tuple[str, int], Fraction] = defaultdict(Fraction)
    played: dict[str, int] = defaultdict(int)
    pending: dict[int, tuple[str, dict[int, Fraction]]] = {}  # undone later, by the undo's id
    undos: set[int] = set()
    rows: list[tuple[Any, ...]] = []
    current: tuple[int, str, int | None, str, dict[int, Fraction]] | None = None

    def apply(event: tuple[int, str, int | None, str, dict[int, Fraction]]) -> None:
        event_id, kind, undone_by, unit, net = event
        if kind == "undo" and event_id in pending:
            gone_unit, gone = pending.pop(event_id)
            played[gone_unit] -= 1
            for pid, value in gone.items():
                balances[(gone_unit, pid)] -= value
        if kind == "undo":
            undos.add(event_id)
        if kind not in RECORDS or undone_by in undos:
            return  # a copy undone before it was written (`bench.ledger`) never counted
        played[unit] += 1
        for pid, value in net.items():
            balances[(unit, pid)] += value
        if undone_by is not None:
            pending[undone_by] = (unit, net)

    for event_id, seq, kind, game, undone_by, unit, payer, payee, amount in db.execute(
        LEDGER, {"season": season_id}
    ):
        if current is None or current[0] != event_id:
            if current is not None:
                apply(current)
            if seq % marks.MARK_EVERY == 0:
                rows.extend(
                    (season_id, seq, u, pid, str(value), played[u])
                    for (u, pid), value in balances.items()
                    if value
                )
            current = (
                event_id,
                kind,
                undone_by,
                unit or marks.unit_of(game),
                defaultdict(Fraction),
            )
        if amount is not None:
            value = Fraction(amount)
            if payer is not None:
                current[4][payer] -= value
            if payee is not None:
                current[4][payee] += value
    return sorted(rows)
