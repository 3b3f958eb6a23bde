"""chat.idle, chat.sitting_from, plan, plan_answer: around the game (issue 42)

A table with no record for `chat.idle` minutes (360 by default, 0: never) closes itself at the
next command, and a new sitting begins at the chat's record `chat.sitting_from` (/summary reads
no further back). /yue arranges the next game: `plan` keeps when, which
game, its poll and whether its reminder was sent (claimed once, so a restart or a second worker
sends it once); `plan_answer` keeps each member's last answer to the poll. Fees (/fee) need no
column: a record of kind `fee` whose transfers count in a money unit (`money:<what>`).

Revision ID: 0024_around_the_game
Revises: 0023_near_repeats
Create Date: 2026-12-05 08:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime

revision: str = "0024_around_the_game"
down_revision: str | None = "0023_near_repeats"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.add_column(
            sa.Column("idle", sa.Integer(), nullable=False, server_default=sa.text("360"))
        )
        batch.add_column(
            sa.Column("sitting_from", sa.Integer(), nullable=False, server_default=sa.text("0"))
        )
    now = sa.text("CURRENT_TIMESTAMP")
    op.create_table(
        "plan",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column("at", UTCDateTime(), nullable=False),
        sa.Column("game", AutoString(), server_default=sa.text("''"), nullable=False),
        sa.Column("seats", sa.Integer(), server_default=sa.text("4"), nullable=False),
        sa.Column("poll_id", AutoString(), nullable=True),
        sa.Column("message_id", sa.BigInteger(), nullable=True),
        sa.Column("created_by", sa.BigInteger(), nullable=True),
        sa.Column("created_by_name", AutoString(), server_default=sa.text("''"), nullable=False),
        sa.Column("created_at", UTCDateTime(), server_default=now, nullable=False),
        sa.Column("cancelled_at", UTCDateTime(), nullable=True),
        sa.Column("reminded_at", UTCDateTime(), nullable=True),
        sa.Column("full_at", UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("poll_id"),
    )
    op.create_index("ix_plan_chat_id", "plan", ["chat_id"])
    op.create_index("ix_plan_reminded_at", "plan", ["reminded_at"])
    op.create_table(
        "plan_answer",
        sa.Column("plan_id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("name", AutoString(), server_default=sa.text("''"), nullable=False),
        sa.Column("username", AutoString(), nullable=True),
        sa.Column("coming", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.Column("answered_at", UTCDateTime(), server_default=now, nullable=False),
        sa.ForeignKeyConstraint(["plan_id"], ["plan.id"]),
        sa.PrimaryKeyConstraint("plan_id", "user_id"),
    )


def downgrade() -> None:
    op.drop_table("plan_answer")
    op.drop_index("ix_plan_reminded_at", table_name="plan")
    op.drop_index("ix_plan_chat_id", table_name="plan")
    op.drop_table("plan")
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("sitting_from")
        batch.drop_column("idle")
