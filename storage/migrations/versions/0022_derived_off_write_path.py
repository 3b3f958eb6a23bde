"""a light write path: stat_*, balance_mark, rating_sitting and the outbox dropped

/stats, /me, /chart and /rating are computed when asked from one streamed pass over the ledger
(`service.tally`, `service.insight`, `service.rating`); nothing derived is written with a hand
any more. The balances (with their pars) stay: /standings and /settle read them. A webhook's
replies are sent before it answers (`bot.delivery.webhook`): the outbox goes, with any call a
worker stopped before sending (stop the bot before upgrading: a clean stop sends them).

A downgrade makes the tables again and fills them from the ledger as revisions 0007 (stat_*),
0013 (balance_mark) and 0017 (stat_mate) did, with their own frozen code (0007's and 0013's
upgrades run as they are); rating_sitting comes
back empty (the older code builds it when a chat turns the rating on: `/set rating off`, then
`on`), and the outbox as revisions 0010 and 0016 made it, empty.

Revision ID: 0022_derived_off_write_path
Revises: 0021_records
Create Date: 2026-12-06 12:00:00
"""

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0022_derived_off_write_path"
down_revision: str | None = "0021_records"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

DROPPED = (
    "stat_player",
    "stat_win",
    "stat_pair",
    "stat_hands",
    "stat_mate",
    "balance_mark",
    "rating_sitting",
    "outbox",
)


def upgrade() -> None:
    for table in DROPPED:
        op.drop_table(table)  # its indexes go with it


def _released(name: str) -> ModuleType:
    """A released revision of this folder (frozen), for its fill of the ledger."""
    spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def downgrade() -> None:
    _released("0007_season_stats").upgrade()  # stat_player, stat_win, stat_pair, stat_hands
    _released("0013_balance_marks").upgrade()  # balance_mark: both filled from the ledger
    op.create_table(  # as revision 0017 made them
        "stat_mate",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("mate_id", sa.Integer(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False, server_default=sa.text("0")),
        sa.ForeignKeyConstraint(["season_id"], ["season.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["player.id"]),
        sa.ForeignKeyConstraint(["mate_id"], ["player.id"]),
        sa.PrimaryKeyConstraint("season_id", "player_id", "mate_id"),
    )
    op.create_table(
        "rating_sitting",
        sa.Column("chat_id", sa.BigInteger(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("first_seq", sa.Integer(), nullable=False),
        sa.Column("table_id", sa.Integer(), nullable=False),
        sa.Column("first_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("last_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("hands", sa.Integer(), nullable=False),
        sa.Column("nets", sa.JSON(), nullable=False),
        sa.Column("ratings", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["chat_id"], ["chat.id"]),
        sa.PrimaryKeyConstraint("chat_id", "unit", "first_seq"),
    )
    _released("0017_beyond_one_group")._fill_mates(op.get_bind())
    _released("0010_outbox").upgrade()
    _released("0016_outbox_claimed_by").upgrade()
