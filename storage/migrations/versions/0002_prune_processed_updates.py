"""index processed updates by time, so old ones can be pruned

Telegram redelivers an update for at most a day, and after a week without updates it picks
the next update id at random: ids older than that must be forgotten, or a new update could be
mistaken for an old one.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 15:40:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("processed_update", schema=None) as batch_op:
        batch_op.create_index(
            "ix_processed_update_processed_at", ["processed_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("processed_update", schema=None) as batch_op:
        batch_op.drop_index("ix_processed_update_processed_at")
