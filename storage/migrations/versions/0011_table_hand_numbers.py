"""hands numbered per table and season

A hand's number counted the chat's hands (a new table started at 第 8 局, a new season at 14);
it now counts its table's hands in the season, from 1. Numbers already given stay (they are
unique per table and season too); the chat-wide unique constraint gives way to one on
(table_id, season_id, hand_no), which also serves the next number's MAX lookup.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01 13:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# SQLite's copy of the constraint is unnamed: batch mode reflects it under this name.
NAMING = {"uq": "uq_%(table_name)s_%(column_0_N_name)s"}


def upgrade() -> None:
    with op.batch_alter_table("event", naming_convention=NAMING) as batch:
        batch.drop_constraint(_unique_name(), type_="unique")
        batch.create_index(
            "ux_event_table_season_hand", ["table_id", "season_id", "hand_no"], unique=True
        )


def downgrade() -> None:
    """Back to chat-wide numbers: per-table numbers repeat in a chat, so the numbered records
    (hands and transfers) are numbered again over the chat, in their order, and the chat's
    counter goes on after them."""
    with op.batch_alter_table("event", naming_convention=NAMING) as batch:
        batch.drop_index("ux_event_table_season_hand")
    op.execute(
        "UPDATE event SET hand_no = (SELECT r.n FROM (SELECT id, ROW_NUMBER() OVER"
        " (PARTITION BY chat_id ORDER BY seq) AS n FROM event WHERE hand_no IS NOT NULL) r"
        " WHERE r.id = event.id) WHERE hand_no IS NOT NULL"
    )
    op.execute(
        "UPDATE chat SET next_hand_no = COALESCE((SELECT MAX(e.hand_no) FROM event e"
        " WHERE e.chat_id = chat.id), 0) + 1"
    )
    with op.batch_alter_table("event", naming_convention=NAMING) as batch:
        batch.create_unique_constraint("uq_event_chat_id_hand_no", ["chat_id", "hand_no"])


def _unique_name() -> str:
    """PostgreSQL named the constraint itself (`event_chat_id_hand_no_key`, or this revision's
    downgrade named it); SQLite's gets the batch convention's name."""
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        for found in sa.inspect(bind).get_unique_constraints("event"):
            if found["column_names"] == ["chat_id", "hand_no"] and found["name"]:
                return str(found["name"])
        return "event_chat_id_hand_no_key"
    return "uq_event_chat_id_hand_no"
