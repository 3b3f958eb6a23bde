"""The tables of a chat (one open per chat or forum topic): game, rules, seats and dealer."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection

from storage.gateway import every, first, shaped
from storage.models import TableRow, game_table

_OPEN = (game_table.c.chat_id == bindparam("chat"), game_table.c.closed_at.is_(None))
_IN_TOPIC = game_table.c.thread_id == bindparam("thread")
_OPEN_TABLE = select(game_table).where(*_OPEN, _IN_TOPIC)
_OPEN_TABLES = select(game_table).where(*_OPEN).order_by(game_table.c.id)
_BY_ID = select(game_table).where(game_table.c.id == bindparam("table_id"))
_ADD = insert(game_table).returning(*game_table.c)
_CLOSE = update(game_table).where(*_OPEN, _IN_TOPIC)
_MOVE = update(game_table).where(*_OPEN)
_CHANGE = update(game_table).where(game_table.c.id == bindparam("table_id"))


def open_table(db: Connection, chat_id: int, thread_id: int) -> TableRow | None:
    """The open table of a chat or forum topic."""
    return first(TableRow, db.execute(_OPEN_TABLE, {"chat": chat_id, "thread": thread_id}))


def open_tables(db: Connection, chat_id: int) -> list[TableRow]:
    """The chat's open tables, in every topic."""
    return every(TableRow, db.execute(_OPEN_TABLES, {"chat": chat_id}))


def table_by_id(db: Connection, table_id: int) -> TableRow | None:
    return first(TableRow, db.execute(_BY_ID, {"table_id": table_id}))


def close_table(db: Connection, chat_id: int, thread_id: int, when: datetime) -> None:
    """Close the open table of a chat or forum topic, if there is one."""
    db.execute(_CLOSE, {"chat": chat_id, "thread": thread_id, "closed_at": when})


def add_table(
    db: Connection,
    *,
    chat_id: int,
    thread_id: int,
    season_id: int,
    game: str,
    marathon: bool,
    sisuang: bool,
    zerosum: bool,
    name: str = "",
) -> TableRow:
    """Open a table, with no one seated yet (the schema's defaults: no seats, dealer seat 1)."""
    row = db.execute(
        _ADD,
        {
            "chat_id": chat_id,
            "thread_id": thread_id,
            "season_id": season_id,
            "game": game,
            "marathon": marathon,
            "sisuang": sisuang,
            "zerosum": zerosum,
            "name": name,
        },
    ).one()
    return shaped(TableRow, game_table, row)


def set_seats(db: Connection, table: TableRow) -> None:
    """The table's seating: who sits where, and the dealer's seat."""
    db.execute(_CHANGE, {"table_id": table.id, "seats": table.seats, "dealer": table.dealer})


def set_dealer(db: Connection, table_id: int, dealer: int) -> None:
    db.execute(_CHANGE, {"table_id": table_id, "dealer": dealer})


def set_rules(db: Connection, table: TableRow) -> None:
    """The table's options (`/set` changes the open tables' along with the chat's)."""
    db.execute(_CHANGE, {"table_id": table.id, "sisuang": table.sisuang, "zerosum": table.zerosum})


def move_open_tables(db: Connection, chat_id: int, season_id: int) -> None:
    """The chat's open tables play on in a new season (seats and dealer stay)."""
    db.execute(_MOVE, {"chat": chat_id, "season_id": season_id})
