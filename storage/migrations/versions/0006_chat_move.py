"""remember group → supergroup moves, so a late write for the old id follows the chat

`storage.gateway.chat_move` merges the old chat's rows into the new one whichever of the two
migration messages (or a command in the new supergroup) is processed first, and records the
move here; a write for the old id processed after the move goes to the new chat. No data
changes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_move",
        sa.Column("old_id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("new_id", sa.BigInteger(), nullable=False),
        sa.Column(
            "moved_at",
            sqlmodel.sql.sqltypes.UTCDateTime(),
            server_default=sa.text("CURRENT_TIMESTAMP"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("old_id"),
    )


def downgrade() -> None:
    op.drop_table("chat_move")
