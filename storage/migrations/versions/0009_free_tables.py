"""free scoring: a table's game name (`/new free 斗地主`)

Tables opened before have no name: ''.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("game_table", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("name", sa.String(), server_default=sa.text("''"), nullable=False)
        )


def downgrade() -> None:
    # ALTER TABLE … DROP COLUMN (SQLite 3.35+), not a batch copy: a copy drops and recreates
    # game_table, which the events' foreign keys refuse once tables have records.
    op.drop_column("game_table", "name")
