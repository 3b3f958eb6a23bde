"""chat.next_seq goes: a chat's next event number is read from its events

The column kept the chat's event counter, one more UPDATE with every event. The events'
unique (chat_id, seq) index answers the highest number as cheaply, under the same lock of the
chat's row, so the counter is derived instead of kept.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-03 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("next_seq")


def downgrade() -> None:
    """The counter comes back after each chat's highest event number."""
    with op.batch_alter_table("chat") as batch:
        batch.add_column(
            sa.Column("next_seq", sa.Integer(), server_default=sa.text("1"), nullable=False)
        )
    op.execute(
        "UPDATE chat SET next_seq = COALESCE((SELECT MAX(e.seq) FROM event e"
        " WHERE e.chat_id = chat.id), 0) + 1"
    )
