"""the schema fills what a new row does not say: server defaults

Until now the models' Python defaults (`default_factory=utcnow`, `next_seq = 1`…) filled new
rows, and the plain SQL of the hand path restated them in its INSERTs. The service now writes
only through that plain SQL (`storage.gateway`), so the defaults move into the schema, where
every writer gets them: creation times (CURRENT_TIMESTAMP), counters starting at 1, options
off, no topic (thread 0), dealer seat 0, empty text, JSON and seats. No data changes.

On SQLite a column default can only change by rebuilding the table (batch mode);
`storage.migrate.upgrade` runs the rebuild with foreign keys checked once, at the end.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 12:30:00
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NOW = sa.text("CURRENT_TIMESTAMP")
OFF = sa.false()

#: table → (column, its type, its default); the types are those of 0001.
DEFAULTS: dict[str, list[tuple[str, sa.types.TypeEngine[Any], Any]]] = {
    "chat": [
        ("sisuang", sa.Boolean(), OFF),
        ("zerosum", sa.Boolean(), OFF),
        ("next_seq", sa.Integer(), sa.text("1")),
        ("next_hand_no", sa.Integer(), sa.text("1")),
        ("created_at", sa.DateTime(timezone=True), NOW),
    ],
    "season": [("opened_at", sa.DateTime(timezone=True), NOW)],
    "player": [("created_at", sa.DateTime(timezone=True), NOW)],
    "game_table": [
        ("thread_id", sa.BigInteger(), sa.text("0")),
        ("marathon", sa.Boolean(), OFF),
        ("sisuang", sa.Boolean(), OFF),
        ("zerosum", sa.Boolean(), OFF),
        ("seats", sa.JSON(), sa.text("'[]'")),
        ("dealer", sa.Integer(), sa.text("0")),
        ("opened_at", sa.DateTime(timezone=True), NOW),
    ],
    "event": [
        ("text", sa.String(), sa.text("''")),
        ("data", sa.JSON(), sa.text("'{}'")),
        ("recorded_by_name", sa.String(), sa.text("''")),
        ("created_at", sa.DateTime(timezone=True), NOW),
    ],
    "transfer": [("detail", sa.JSON(), sa.text("'{}'"))],
    "balance": [("amount", sa.String(48), sa.text("'0'"))],
    "processed_update": [("processed_at", sa.DateTime(timezone=True), NOW)],
}


def _set(defaults: bool) -> None:
    for table, columns in DEFAULTS.items():
        with op.batch_alter_table(table) as batch:
            for name, type_, default in columns:
                batch.alter_column(
                    name,
                    existing_type=type_,
                    existing_nullable=False,
                    server_default=default if defaults else None,
                )


def upgrade() -> None:
    _set(True)


def downgrade() -> None:
    _set(False)
