"""the Mini App's per-chat tokens: app_link

A chat (and forum topic) gets a random token when someone asks for its app link (/app); the
app's requests name the chat by it. New table only; no data changes.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from sqlmodel.sql.sqltypes import AutoString, UTCDateTime
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "app_link",
        sa.Column("token", AutoString(), nullable=False),
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("thread_id", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
        sa.Column(
            "created_at",
            UTCDateTime(),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"]),
        sa.PrimaryKeyConstraint("token"),
        sa.UniqueConstraint("chat_id", "thread_id"),
    )


def downgrade() -> None:
    op.drop_table("app_link")
