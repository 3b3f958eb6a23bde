"""a light write path: stat_*, balance_mark, rating_sitting and the outbox dropped

/stats, /me, /chart and /rating are computed when asked from one streamed pass over the ledger
(`service.tally`, `service.insight`, `service.rating`); nothing derived is written with a hand
any more. The balances (with their pars) stay: /standings and /settle read them. A webhook's
replies are sent before it answers (`bot.delivery.webhook`): the outbox goes, with any call a
worker stopped before sending (stop the bot before upgrading: a clean stop sends them).

A downgrade makes the tables again and fills them from the ledger as revisions 0007 (stat_*),
0013 (balance_mark) and 0017 (stat_mate) did, with their own frozen code; rating_sitting comes
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

import storage.types

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


def _counter(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer(), nullable=False, server_default=sa.text("0"))


def _fraction(name: str) -> sa.Column[object]:
    return sa.Column(name, storage.types.FractionType(length=48), nullable=False)


def _keys(*columns: str) -> list[sa.ForeignKeyConstraint]:
    targets = {"season_id": "season.id", "chat_id": "chat.id"}
    return [sa.ForeignKeyConstraint([c], [targets.get(c, "player.id")]) for c in columns]


def downgrade() -> None:
    counters = ("hands", "wins", "self_draws", "deal_ins", "first_out", "results")
    op.create_table(
        "stat_player",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        *(_counter(name) for name in counters),
        *_keys("season_id", "player_id"),
        sa.PrimaryKeyConstraint("season_id", "unit", "player_id"),
    )
    op.create_table(
        "stat_win",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        _fraction("value"),
        _counter("times"),
        *_keys("season_id", "player_id"),
        sa.PrimaryKeyConstraint("season_id", "unit", "player_id", "value"),
    )
    op.create_table(
        "stat_pair",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("payer_id", sa.Integer(), nullable=False),
        sa.Column("payee_id", sa.Integer(), nullable=False),
        _fraction("value"),
        _counter("times"),
        *_keys("season_id", "payer_id", "payee_id"),
        sa.PrimaryKeyConstraint("season_id", "payer_id", "payee_id", "value"),
    )
    op.create_table(
        "stat_hands",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        _counter("live"),
        _counter("undone"),
        *_keys("season_id"),
        sa.PrimaryKeyConstraint("season_id", "unit"),
    )
    op.create_table(
        "stat_mate",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("mate_id", sa.Integer(), nullable=False),
        _counter("hands"),
        *_keys("season_id", "player_id", "mate_id"),
        sa.PrimaryKeyConstraint("season_id", "player_id", "mate_id"),
    )
    op.create_table(
        "balance_mark",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        _fraction("amount"),
        sa.Column("played", sa.Integer(), nullable=False),
        *_keys("season_id", "player_id"),
        sa.PrimaryKeyConstraint("season_id", "seq", "unit", "player_id"),
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
        *_keys("chat_id"),
        sa.PrimaryKeyConstraint("chat_id", "unit", "first_seq"),
    )
    conn = op.get_bind()
    stats, marks = _released("0007_season_stats"), _released("0013_balance_marks")
    for (season_id,) in conn.execute(sa.text("SELECT id FROM season ORDER BY id")).fetchall():
        stats._fill(conn, season_id)
        marks._fill(conn, season_id)
    _released("0017_beyond_one_group")._fill_mates(conn)
    _released("0010_outbox").upgrade()
    _released("0016_outbox_claimed_by").upgrade()
