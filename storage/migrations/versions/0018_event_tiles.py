"""event.tiles: a hand's winning tiles, as scored

A /hu written with the winner's tiles keeps the reading scored in the win's data (/history and
the Mini App show it from there) and, as one text, in this column: /export writes it on each of
the hand's payments without reading the data's JSON per row. Empty for every other event.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-03 12:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "event", sa.Column("tiles", sa.String(), nullable=False, server_default=sa.text("''"))
    )


def downgrade() -> None:
    with op.batch_alter_table("event") as batch:
        batch.drop_column("tiles")
