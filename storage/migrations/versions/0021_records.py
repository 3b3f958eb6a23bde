"""reminder: a long hint given to a player once in a season

The 门清 reminder ("scored as not concealed: /undo and write it again with mq") came with every
hand a player won without saying 门清 (19 times in a 37-hand night); the hand's breakdown
already says it. It now comes once per player and season: this table remembers who has had it.
No foreign keys (a stale row only means a hint given once more). Nothing to fill: who was
reminded before is not known, so each player gets it once more.

Revision ID: 0021_records
Revises: 0019
Create Date: 2026-12-03 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021_records"
down_revision: str | None = "0020_people"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reminder",
        sa.Column("season_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("player_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("hint", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("season_id", "player_id", "hint"),
    )


def downgrade() -> None:
    op.drop_table("reminder")
