"""balance marks: a season's balances every 20 events, for /chart, filled for every season

/chart drew a season's balances from one pass over its whole ledger (linear: ~2.5 s at 100,000
hands). From now on, every 20th event of a chat copies its season's non-zero balances as they
stood before it, with each unit's count of live records (`storage.gateway.marks`), and /chart
reads these marks. This revision creates the table and fills it for every season from the ledger
as it is, one season at a time, streamed: the marks `mark` would have written, had it been there.
The fill is this revision's own (`_fill`), as the gateway's was when it was released: a revision
must not change with the code that follows it.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 15:10:00
"""

from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sqlalchemy as sa
from alembic import op

import storage.types

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "balance_mark",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("amount", storage.types.FractionType(length=48), nullable=False),
        sa.Column("played", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["season_id"], ["season.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("season_id", "seq", "unit", "player_id"),
    )
    conn = op.get_bind()
    for (season_id,) in conn.execute(sa.text("SELECT id FROM season ORDER BY id")).fetchall():
        _fill(conn, season_id)


def downgrade() -> None:
    op.drop_table("balance_mark")


MARK_EVERY = 20
RECORDS = ("hand", "pay")
UNITS = {"mahjong": "mahjong", "510k": "510k", "510k3": "510k", "free": "free"}
LEDGER = sa.text(
    "SELECT e.id, e.seq, e.kind, e.game, e.undone_by, t.unit, t.payer_id, t.payee_id, t.amount"
    " FROM event e LEFT JOIN transfer t ON t.event_id = e.id WHERE e.season_id = :season"
    " ORDER BY e.seq, t.id"
)
ADD = sa.text(
    "INSERT INTO balance_mark (season_id, seq, unit, player_id, amount, played)"
    " VALUES (:season_id, :seq, :unit, :player_id, :amount, :played)"
)


def _fill(conn: Any, season_id: int) -> None:
    """The season's marks from its ledger, as `mark` would have written them: one streamed
    pass, the rows written a few thousand at a time."""
    balances: dict[tuple[str, int], Fraction] = defaultdict(Fraction)
    played: dict[str, int] = defaultdict(int)
    pending: dict[int, tuple[str, dict[int, Fraction]]] = {}  # by the undo's id
    undos: set[int] = set()
    rows: list[dict[str, Any]] = []
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
            return
        played[unit] += 1
        for pid, value in net.items():
            balances[(unit, pid)] += value
        if undone_by is not None:
            pending[undone_by] = (unit, net)

    def write() -> None:
        if rows:
            conn.execute(ADD, rows)
            rows.clear()

    streaming = {"yield_per": 2000}
    ledger = conn.execute(LEDGER, {"season": season_id}, execution_options=streaming)
    for event_id, seq, kind, game, undone_by, unit, payer, payee, amount in ledger:
        if current is None or current[0] != event_id:
            if current is not None:
                apply(current)
            if seq % MARK_EVERY == 0:
                rows.extend(
                    {"season_id": season_id, "seq": seq, "unit": u, "player_id": pid}
                    | {"amount": str(value), "played": played[u]}
                    for (u, pid), value in balances.items()
                    if value
                )
                if len(rows) > 5000:
                    write()
            current = (event_id, kind, undone_by, unit or UNITS[game], defaultdict(Fraction))
        if amount is not None:
            value = Fraction(amount)
            if payer is not None:
                current[4][payer] -= value
            if payee is not None:
                current[4][payee] += value
    write()
