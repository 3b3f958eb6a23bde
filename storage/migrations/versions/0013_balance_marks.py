"""balance marks: a season's balances every 20 events, for /chart, filled for every season

/chart drew a season's balances from one pass over its whole ledger (linear: ~2.5 s at 100,000
hands). From now on, every 20th event of a chat copies its season's non-zero balances as they
stood before it, with each unit's count of live records (`storage.gateway.marks`), and /chart
reads these marks. This revision creates the table and fills it for every season from the ledger
as it is, one season at a time, streamed: the marks `mark` would have written, had it been there.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01 15:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import storage.types
from storage.gateway.marks import fill
from storage.sql import Sql

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
    db = Sql(conn)
    for (season_id,) in conn.execute(sa.text("SELECT id FROM season ORDER BY id")).fetchall():
        fill(db, season_id)


def downgrade() -> None:
    op.drop_table("balance_mark")
