"""The tables of a chat (one open per chat or forum topic): game, rules, seats and dealer."""

from __future__ import annotations

from storage.rows import TableRow
from storage.sql import Row, Sql

TABLE = "id, season_id, game, marathon, sisuang, zerosum, seats, dealer, name"
OPEN = "chat_id = ? AND closed_at IS NULL"  # the chat's open tables (one per topic)
TABLE_T = ", ".join(f"t.{column}" for column in TABLE.split(", "))  # joined as `t`
OPEN_T = "t.chat_id = ? AND t.closed_at IS NULL AND t.thread_id = ?"  # that of a topic, as `t`


def joined_table(db: Sql, row: Row) -> TableRow | None:
    """A table read joined to another statement's row (`TABLE_T`): None when none matched."""
    return None if row[0] is None else _table(db, row)


def _table(db: Sql, row: Row) -> TableRow:
    id_, season_id, game, marathon, sisuang, zerosum, seats, dealer, name = row
    return TableRow(
        id_,
        season_id,
        game,
        bool(marathon),
        bool(sisuang),
        bool(zerosum),
        db.json_out(seats),
        dealer,
        name,
    )


def open_table(db: Sql, chat_id: int, thread_id: int) -> TableRow | None:
    """The open table of a chat or forum topic."""
    row = db.row(
        f"SELECT {TABLE} FROM game_table WHERE {OPEN} AND thread_id = ?", (chat_id, thread_id)
    )
    return None if row is None else _table(db, row)


def open_tables(db: Sql, chat_id: int) -> list[TableRow]:
    """The chat's open tables, in every topic."""
    return [
        _table(db, row)
        for row in db.rows(f"SELECT {TABLE} FROM game_table WHERE {OPEN}", (chat_id,))
    ]


def table_by_id(db: Sql, table_id: int) -> TableRow | None:
    row = db.row(f"SELECT {TABLE} FROM game_table WHERE id = ?", (table_id,))
    return None if row is None else _table(db, row)


def close_table(db: Sql, chat_id: int, thread_id: int) -> None:
    """Close the open table of a chat or forum topic, if there is one."""
    db.run(
        f"UPDATE game_table SET closed_at = CURRENT_TIMESTAMP WHERE {OPEN} AND thread_id = ?",
        (chat_id, thread_id),
    )


def add_table(
    db: Sql,
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
    row = db.row(
        "INSERT INTO game_table"
        " (chat_id, thread_id, season_id, game, marathon, sisuang, zerosum, name)"
        f" VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING {TABLE}",
        (chat_id, thread_id, season_id, game, marathon, sisuang, zerosum, name),
    )
    assert row is not None
    return _table(db, row)


def set_seats(db: Sql, table: TableRow) -> None:
    """The table's seating: who sits where, and the dealer's seat."""
    db.run(
        "UPDATE game_table SET seats = ?, dealer = ? WHERE id = ?",
        (db.json_in(table.seats), table.dealer, table.id),
    )


def set_dealer(db: Sql, table_id: int, dealer: int) -> None:
    db.run("UPDATE game_table SET dealer = ? WHERE id = ?", (dealer, table_id))


def set_rules(db: Sql, table: TableRow) -> None:
    """The table's options (`/set` changes the open tables' along with the chat's)."""
    db.run(
        "UPDATE game_table SET sisuang = ?, zerosum = ? WHERE id = ?",
        (table.sisuang, table.zerosum, table.id),
    )


def move_open_tables(db: Sql, chat_id: int, season_id: int) -> None:
    """The chat's open tables play on in a new season (seats and dealer stay)."""
    db.run(f"UPDATE game_table SET season_id = ? WHERE {OPEN}", (season_id, chat_id))
