"""/stats kept up to date: stat_player, stat_win, stat_pair, stat_hands, filled for every season

A recorded hand adds its tally (`scoring.hand_stats`) to these tables in its transaction, its
undo subtracts it, so /stats reads a few rows per player instead of the season's history. This
revision creates them and fills them from the ledger as it is: every season's live hands, one
season at a time, streamed (a season's tallies are small whatever its length). Free rounds
count in their own unit (`data["unit"]`); transfers (kind 'pay') are no hands and are left out.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01 13:00:00
"""

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

import sqlalchemy as sa
from alembic import op
from sqlalchemy.engine import Connection

import storage.types
from scoring.hand_stats import COUNTERS, HandStats, Payment, hand_stats

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ZERO = sa.text("0")


def _fk(*columns: str) -> list[sa.ForeignKeyConstraint]:
    targets = {"season_id": "season.id"}
    return [sa.ForeignKeyConstraint([c], [targets.get(c, "player.id")]) for c in columns]


def _counter(name: str) -> sa.Column[int]:
    return sa.Column(name, sa.Integer(), nullable=False, server_default=ZERO)


def _value() -> sa.Column[Any]:
    return sa.Column("value", storage.types.FractionType(length=48), nullable=False)


def upgrade() -> None:
    op.create_table(
        "stat_player",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        *(_counter(name) for name in COUNTERS),
        *_fk("season_id", "player_id"),
        sa.PrimaryKeyConstraint("season_id", "unit", "player_id"),
    )
    op.create_table(
        "stat_win",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        _value(),
        _counter("times"),
        *_fk("season_id", "player_id"),
        sa.PrimaryKeyConstraint("season_id", "unit", "player_id", "value"),
    )
    op.create_table(
        "stat_pair",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("payer_id", sa.Integer(), nullable=False),
        sa.Column("payee_id", sa.Integer(), nullable=False),
        _value(),
        _counter("times"),
        *_fk("season_id", "payer_id", "payee_id"),
        sa.PrimaryKeyConstraint("season_id", "payer_id", "payee_id", "value"),
    )
    op.create_table(
        "stat_hands",
        sa.Column("season_id", sa.Integer(), nullable=False),
        sa.Column("unit", sa.String(), nullable=False),
        _counter("live"),
        _counter("undone"),
        *_fk("season_id"),
        sa.PrimaryKeyConstraint("season_id", "unit"),
    )
    conn = op.get_bind()
    for (season_id,) in conn.execute(sa.text("SELECT id FROM season ORDER BY id")).fetchall():
        _fill(conn, season_id)


def downgrade() -> None:
    for table in ("stat_hands", "stat_pair", "stat_win", "stat_player"):
        op.drop_table(table)


def _hands(conn: Connection, season_id: int) -> Iterator[tuple[str, Any, bool, list[Payment]]]:
    """(game, data, live, payments) of the season's hands, in order, streamed."""
    rows = conn.execute(
        sa.text(
            "SELECT e.id, e.game, e.data, e.undone_by, t.payer_id, t.payee_id, t.amount, t.reason"
            " FROM event e LEFT JOIN transfer t ON t.event_id = e.id"
            " WHERE e.season_id = :season AND e.kind = 'hand' ORDER BY e.seq, t.id"
        ),
        {"season": season_id},
        execution_options={"stream_results": True},
    )
    current: list[Any] | None = None
    for event_id, game, data, undone_by, payer, payee, amount, reason in rows:
        if current is None or current[0] != event_id:
            if current is not None:
                yield current[1], current[2], current[3], current[4]
            decoded = json.loads(data) if isinstance(data, str) else data
            current = [event_id, game, decoded or {}, undone_by is None, []]
        if amount is not None:
            current[4].append(Payment(payer, payee, Fraction(amount), reason))
    if current is not None:
        yield current[1], current[2], current[3], current[4]


def _fill(conn: Connection, season_id: int) -> None:
    counts: dict[tuple[str, int], dict[str, int]] = {}
    wins: dict[tuple[str, int, Fraction], int] = defaultdict(int)
    pairs: dict[tuple[int, int, Fraction], int] = defaultdict(int)
    hands: dict[str, list[int]] = {}
    for game, data, live, payments in _hands(conn, season_id):
        tally: HandStats = hand_stats(game, data, payments)
        hands.setdefault(tally.unit, [0, 0])[0 if live else 1] += 1
        if not live:
            continue
        for pid, added in tally.counts.items():
            kept = counts.setdefault((tally.unit, pid), dict.fromkeys(COUNTERS, 0))
            for name, n in added.items():
                kept[name] += n
        for pid, value in tally.wins:
            wins[(tally.unit, pid, value)] += 1
        for (payer, payee), value in tally.pairs.items():
            pairs[(payer, payee, value)] += 1
    _insert(
        conn,
        "stat_player",
        ("season_id", "unit", "player_id", *COUNTERS),
        [(season_id, unit, pid, *(c[n] for n in COUNTERS)) for (unit, pid), c in counts.items()],
    )
    _insert(
        conn,
        "stat_win",
        ("season_id", "unit", "player_id", "value", "times"),
        [(season_id, unit, pid, str(value), n) for (unit, pid, value), n in wins.items()],
    )
    _insert(
        conn,
        "stat_pair",
        ("season_id", "payer_id", "payee_id", "value", "times"),
        [(season_id, a, b, str(value), n) for (a, b, value), n in pairs.items()],
    )
    _insert(
        conn,
        "stat_hands",
        ("season_id", "unit", "live", "undone"),
        [(season_id, unit, live, undone) for unit, (live, undone) in hands.items()],
    )


def _insert(
    conn: Connection, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]
) -> None:
    if rows:
        names = ", ".join(columns)
        marks = ", ".join(f":{c}" for c in columns)
        conn.execute(
            sa.text(f"INSERT INTO {table} ({names}) VALUES ({marks})"),
            [dict(zip(columns, row, strict=True)) for row in rows],
        )
