"""a table's events looked up within their season

Every lookup of a table's events names its season too (the last live hand, the kongs pending,
the hand by number). The index on (table_id, seq) served them by walking the table's events
newest first, so after /reset a table moved to the new, still empty season walked every
archived hand before finding none (42 ms at 100,000 hands, on each hand and /undo). The index
on (table_id, season_id, seq) goes straight to the season's events.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01 15:00:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_event_table_season_seq", "event", ["table_id", "season_id", "seq"])
    op.drop_index("ix_event_table_seq", table_name="event")


def downgrade() -> None:
    op.create_index("ix_event_table_seq", "event", ["table_id", "seq"])
    op.drop_index("ix_event_table_season_seq", table_name="event")
