"""outbox.claimed_by: a claim names the sender holding it

A sender holds the calls it sends under a short lease and its own number (`claimed_by`): a new
start of the only SQLite process takes over what a dead one held at once, and a chat's calls
held by another live sender keep the chat's later calls back, so its replies never overtake
each other.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-03 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("claimed_by", sa.BigInteger(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("claimed_by")
