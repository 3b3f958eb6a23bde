"""balance.par and chat.stakes: settle-up squared hand by hand, a stake per game

/settle squared a unit's balances around the season's average, so a 510K player who sat at a
few hands was billed for hands played without him. From now on each balance row keeps `par`:
the sum, over the live records its player sat at, of that record's average over the players
seated at it (zero for zero-sum records: mahjong, free rounds, transfers, 510K with zerosum);
balance − par is what zerosum would have recorded. This revision adds the column and fills it
from the ledger as it is: each live 510K hand's scores (its transfers with the table) summed and
shared among the seats it was recorded at (its data's `seats`; hands written before they were
kept: the table's seats). The fill is this revision's own, as revision 0013's is.

`chat.stakes`: a game's own stake (unit → decimal text, `{}` for none).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-04 12:00:00
"""

import json
from collections import defaultdict
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import sqlalchemy as sa
from alembic import op

import storage.types

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HANDS = sa.text(
    "SELECT e.id, e.season_id, e.data, g.seats, t.payer_id, t.payee_id, t.amount"
    " FROM event e JOIN transfer t ON t.event_id = e.id"
    " LEFT JOIN game_table g ON g.id = e.table_id"
    " WHERE e.kind = 'hand' AND e.game IN ('510k', '510k3') AND e.undone_by IS NULL"
    " AND t.unit = '510k' ORDER BY e.id, t.id"
)
SET_PAR = sa.text(
    "UPDATE balance SET par = :par"
    " WHERE season_id = :season_id AND player_id = :player_id AND unit = '510k'"
)


def upgrade() -> None:
    par = sa.Column(
        "par", storage.types.FractionType(length=48), server_default=sa.text("'0'"), nullable=False
    )
    op.add_column("balance", par)
    op.add_column(
        "chat", sa.Column("stakes", sa.JSON(), server_default=sa.text("'{}'"), nullable=False)
    )
    _fill(op.get_bind())


def downgrade() -> None:
    # ALTER TABLE … DROP COLUMN (SQLite 3.35+), not a batch copy: the chat's row is referenced.
    op.drop_column("chat", "stakes")
    op.drop_column("balance", "par")


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _fill(conn: Any) -> None:
    """Each live 510K hand's total score shared among its seats, summed per season and player."""
    totals: dict[int, Fraction] = defaultdict(Fraction)  # by event id
    seats_of: dict[int, tuple[int, list[int]]] = {}  # event id → (season id, seated ids)
    for event_id, season_id, data, table_seats, payer, payee, amount in conn.execute(HANDS):
        if event_id not in seats_of:
            seats = _json(data).get("seats") or _json(table_seats) or []
            seats_of[event_id] = (season_id, [int(pid) for pid in seats])
        value = Fraction(amount)
        totals[event_id] += value if payee is not None else 0
        totals[event_id] -= value if payer is not None else 0
    pars: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for event_id, total in totals.items():
        season_id, seats = seats_of[event_id]
        for pid in seats if total else ():
            pars[(season_id, pid)] += total / len(seats)
    rows = [
        {"season_id": season_id, "player_id": pid, "par": str(par)}
        for (season_id, pid), par in pars.items()
        if par
    ]
    if rows:
        conn.execute(SET_PAR, rows)
