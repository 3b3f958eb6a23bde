"""near_repeat: a hand typed again with a difference, waiting for an answer

Issue 37: the winner and the loser type the same hand at once and disagree on one flag. The
second is not recorded: the bot asks [Replace #N] / [Record both] / [No], and whichever answer
comes first records the content kept here (a button's data cannot hold a hand). No foreign
keys: a row left behind by a moved chat or an archived season only means a stale question.

Revision ID: 0023_near_repeats
Revises: 0022_derived_off_write_path
Create Date: 2026-12-05 05:20:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision: str = "0023_near_repeats"
down_revision: str | None = "0022_derived_off_write_path"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "near_repeat",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("event_id", sa.Integer(), nullable=False),
        sa.Column("same", sa.JSON(), nullable=False),
        sa.Column("text", AutoString(), server_default=sa.text("''"), nullable=False),
        sa.Column(
            "created_at", UTCDateTime(), server_default=sa.text("CURRENT_TIMESTAMP"), nullable=False
        ),
        sa.PrimaryKeyConstraint("id"),
    )


def downgrade() -> None:
    op.drop_table("near_repeat")
