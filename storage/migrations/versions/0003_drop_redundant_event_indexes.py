"""drop the event indexes that others already cover

`ix_event_chat_id` is the leading column of the unique (chat_id, seq) index and
`ix_event_season_id` the leading column of `ix_event_season_kind_seq`: every lookup they served
is served as well by those, and each cost a B-tree insert for every hand recorded.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29 17:15:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_index("ix_event_chat_id", table_name="event")
    op.drop_index("ix_event_season_id", table_name="event")


def downgrade() -> None:
    op.create_index("ix_event_season_id", "event", ["season_id"], unique=False)
    op.create_index("ix_event_chat_id", "event", ["chat_id"], unique=False)
