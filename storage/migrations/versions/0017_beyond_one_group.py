"""chat.title, chat.rating, stat_mate, rating_sitting, an index of players by Telegram user

/me reads a member's records in every group: their players by user id (an index), each group
named by its title (kept from the updates the bot sees), and whom they play most (stat_mate:
per season, how many live hands two players were at together, filled here from the ledger as
it is). /rating (off by default: chat.rating) keeps one row per sitting of a game
(rating_sitting), built from the ledger when a chat turns it on.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05 12:00:00
"""

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("chat") as batch:
        batch.add_column(sa.Column("title", sa.String(), nullable=True))
        batch.add_column(
            sa.Column("rating", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    op.create_index("ix_player_user", "player", ["user_id"])
    op.create_table(
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
    _fill_mates(op.get_bind())


def _fill_mates(conn: sa.engine.Connection) -> None:
    """Every live hand's players (seated, or paid or charged by it), counted per ordered pair
    and season: one streamed pass over the hands and their transfers."""
    rows = conn.execute(
        sa.text(
            "SELECT e.id, e.season_id, e.data, t.payer_id, t.payee_id FROM event e"
            " LEFT JOIN transfer t ON t.event_id = e.id"
            " WHERE e.kind = 'hand' AND e.undone_by IS NULL ORDER BY e.id"
        ).execution_options(yield_per=5000)
    )
    pairs: Counter[tuple[int, int, int]] = Counter()
    hand: tuple[int, int] | None = None
    people: set[int] = set()

    def count() -> None:
        if hand is not None:
            for a in people:
                for b in people:
                    if a != b:
                        pairs[(hand[1], a, b)] += 1

    for event_id, season_id, data, payer, payee in rows:
        if hand is None or hand[0] != event_id:
            count()
            hand, people = (event_id, season_id), set(_seats(data))
        people.update(pid for pid in (payer, payee) if pid is not None)
    count()
    if pairs:
        op.bulk_insert(
            sa.table(
                "stat_mate",
                sa.column("season_id"),
                sa.column("player_id"),
                sa.column("mate_id"),
                sa.column("hands"),
            ),
            [
                {"season_id": s, "player_id": a, "mate_id": b, "hands": n}
                for (s, a, b), n in pairs.items()
            ],
        )


def _seats(data: Any) -> list[int]:
    if isinstance(data, str):
        data = json.loads(data)
    seats = (data or {}).get("seats") or []
    return [int(pid) for pid in seats if pid is not None]


def downgrade() -> None:
    op.drop_table("rating_sitting")
    op.drop_table("stat_mate")
    op.drop_index("ix_player_user", "player")
    with op.batch_alter_table("chat") as batch:
        batch.drop_column("rating")
        batch.drop_column("title")
