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
    with op.batch_alter_table("event", naming_convention=NAMING) as batch:
        batch.drop_index("ux_event_table_season_hand")
        batch.create_unique_constraint("uq_event_chat_id_hand_no", ["chat_id", "hand_no"])


def _unique_name() -> str:
    """PostgreSQL named the constraint itself; SQLite's gets the batch convention's name."""
    if op.get_bind().dialect.name == "postgresql":
        return "event_chat_id_hand_no_key"
    return "uq_event_chat_id_hand_no"
