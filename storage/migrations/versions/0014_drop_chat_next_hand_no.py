"""chat.next_hand_no goes: hands are numbered per table and season since 0011

The column kept the chat-wide hand counter; since revision 0011 a hand's number is its table's
next in the season, read from the events themselves, and nothing reads or needs the column.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01 15:40:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("next_hand_no")


def downgrade() -> None:
    """The counter comes back after the chat's highest hand number (0011's downgrade numbers
    the hands over the chat again and sets it anew)."""
    with op.batch_alter_table("chat") as batch:
        batch.add_column(
            sa.Column("next_hand_no", sa.Integer(), server_default=sa.text("1"), nullable=False)
        )
    op.execute(
        "UPDATE chat SET next_hand_no = COALESCE((SELECT MAX(e.hand_no) FROM event e"
        " WHERE e.chat_id = chat.id), 0) + 1"
    )
