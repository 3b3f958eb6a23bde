"""player.named: a name chosen in the chat (`/rename`), kept over the Telegram first name

A member's player takes their Telegram first name each time they write; after `/rename` the
name given in the chat is kept instead (`named` true).

Revision ID: 0020_people
Revises: 0019
Create Date: 2026-12-05 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020_people"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.add_column(
            sa.Column("named", sa.Boolean(), server_default=sa.false(), nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("player") as batch:
        batch.drop_column("named")
