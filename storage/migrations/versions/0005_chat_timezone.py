"""each chat has a time zone for /history and /export: chat.tz (IANA name, default UTC)

Existing chats get 'UTC', which is what their times were shown in so far. No data changes.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "chat", sa.Column("tz", sa.String(), nullable=False, server_default=sa.text("'UTC'"))
    )


def downgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("tz")
