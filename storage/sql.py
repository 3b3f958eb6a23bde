"""Plain DBAPI statements inside a SQLAlchemy transaction: the handle of `storage.gateway`.

A statement costs ~5 µs through the driver and 70–400 µs through SQLAlchemy's statement
building and the ORM (`bench/RESULTS.md`). The statements are written once in SQLite's `?`
style, numbered for PostgreSQL (`$1`, `$2`…, sent as written by psycopg's raw cursors), and run
on the connection of the caller's transaction, so they commit (or roll back) with everything
else it did.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from functools import cache
from typing import Any

import orjson
from sqlalchemy.engine import Connection

Row = tuple[Any, ...]
Statement = tuple[str, Sequence[Any]]  # SQL and its parameters
ReadKey = tuple[str, tuple[Any, ...]]  # a read, as `storage.read_ahead` matches it


class Sql:
    """The raw connection of one transaction, with the dialect's few differences adapted."""

    __slots__ = (
        "_ahead",
        "_conn",
        "_cursor",
        "_first",
        "_more",
        "_reads",
        "_recording",
        "_stamp",
        "engine",
        "moment",
        "pg",
    )

    def __init__(self, connection: Connection) -> None:
        driver: Any = connection.connection.driver_connection
        self._conn = driver
        self.pg = connection.dialect.name == "postgresql"
        # One cursor for the transaction's statements: a new one each costs more than a short
        # statement (psycopg: ~10 µs of its ~25). Each statement's rows are read before the
        # next runs; a result not read (a write's, queued in PostgreSQL's pipeline) is dropped.
        self._cursor = _raw_cursor(driver) if self.pg else driver.cursor()
        self.engine = connection.engine  # for a read that streams after this one (/export)
        self.moment = datetime.now(UTC)  # the time of everything this write records
        self._stamp: Any = None
        self._more: list[Any] = []  # `lock_and_read`'s cursors, made when first needed
        self._ahead: dict[ReadKey, list[Row]] | None = None  # answers sent ahead, not yet asked
        self._reads: list[ReadKey] = []  # reads since `lock_and_read`, until the first write
        self._recording = False  # from `lock_and_read` until the first write
        self._first: tuple[Statement, Statement, Sequence[ReadKey]] | None = None  # sent, unread

    def stamp(self) -> Any:
        """`moment` as stored (formatted once)."""
        if self._stamp is None:
            self._stamp = self.when(self.moment)
        return self._stamp

    def _sql(self, sql: str) -> str:
        return _numbered(sql) if self.pg else sql

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self._recording or self._ahead is not None:
            found = self._answered(sql, params)
            if found is not None:
                return found
        return list(self._cursor.execute(self._sql(sql), params).fetchall())

    def stream(self, sql: str, params: Sequence[Any] = (), size: int = 2000) -> Iterator[Row]:
        """The rows one batch at a time, not all in memory: SQLite's cursor steps as read;
        PostgreSQL's is server-side (named), inside the caller's transaction."""
        cursor = _raw_cursor(self._conn, "jifen_stream") if self.pg else self._conn.cursor()
        try:
            cursor.execute(self._sql(sql), params)
            while batch := cursor.fetchmany(size):
                yield from batch
        finally:
            cursor.close()

    def lock_and_read(
        self, lock: Statement, then: Statement, ahead: Sequence[ReadKey] = ()
    ) -> tuple[Row | None, Row | None]:
        """The first row of `lock` (which takes a lock) and of `then`. On PostgreSQL, in a
        pipelined transaction, both are sent before either answer is awaited, with the reads
        `ahead` (see `storage.read_ahead`): one round trip. The server runs them in order, each
        with a snapshot of its own: `then` and `ahead` run once the lock is held and see what
        committed before. The reads made from now until the first write are kept (`reads`)."""
        if not self.pg:
            return self.row(*lock), self.row(*then)
        if self._first != (lock, then, ahead):
            self.send_first(lock, then, ahead)
        self._first = None
        locked, found = self._more[0].fetchone(), self._more[1].fetchone()
        answers = (list(cursor.fetchall()) for cursor in self._more[2:])
        self._ahead = dict(zip(ahead, answers, strict=False))
        self._recording = True
        return locked, found

    def send_first(self, lock: Statement, then: Statement, ahead: Sequence[ReadKey] = ()) -> None:
        """PostgreSQL: send `lock_and_read`'s statements now, read nothing: a batch sends every
        write's before running any (`storage.group_commit`), and `lock_and_read` with the same
        statements then only reads their answers."""
        while len(self._more) < 2 + len(ahead):  # cursors of their own: others may run meanwhile
            self._more.append(_raw_cursor(self._conn))
        for cursor, (sql, params) in zip(self._more, (lock, then, *ahead), strict=False):
            cursor.execute(self._sql(sql), params)
        self._first = (lock, then, ahead)

    def reads(self) -> tuple[ReadKey, ...]:
        """The reads made after `lock_and_read` and before the first write (PostgreSQL)."""
        return tuple(self._reads)

    def _answered(self, sql: str, params: Sequence[Any]) -> list[Row] | None:
        """A read's answer sent ahead, if it was; a write drops those not taken, and ends the
        reads that are kept (`reads`)."""
        if not sql.startswith("SELECT"):
            self._wrote()
            return None
        key = (sql, tuple(params))
        try:
            return None if self._ahead is None else self._ahead.pop(key, None)
        except TypeError:  # a parameter that cannot be matched (a list): never sent ahead
            return None
        finally:
            if self._recording:
                self._reads.append(key)

    def _wrote(self) -> None:
        self._ahead, self._recording = None, False

    def row(self, sql: str, params: Sequence[Any] = ()) -> Row | None:
        if self._recording or self._ahead is not None:
            answer = self._answered(sql, params)
            if answer is not None:
                return answer[0] if answer else None
        found: Row | None = self._cursor.execute(self._sql(sql), params).fetchone()
        return found

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        self._wrote()  # see `_answered`
        self._cursor.execute(self._sql(sql), params)

    def many(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        self._wrote()
        if params:
            self._cursor.executemany(self._sql(sql), params)

    def run_all(self, statements: Iterable[Statement | None]) -> None:
        """Writes whose results are not read, each on a table of its own (none may depend on
        another's change): on PostgreSQL one statement (the others in its WITH: one statement
        for the server to run and the client to send), on SQLite one after another."""
        todo = [s for s in statements if s is not None]
        if self.pg and len(todo) > 1:
            *first, (last, _) = todo
            parts = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(first))
            self.run(f"WITH {parts} {last}", [p for _, params in todo for p in params])
            return
        for sql, params in todo:
            self.run(sql, params)

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        """Run an INSERT and return the new row's id."""
        self._wrote()
        if self.pg:
            found = self._cursor.execute(self._sql(sql + " RETURNING id"), params).fetchone()
            return int(found[0])
        return int(self._cursor.execute(sql, params).lastrowid)

    def when(self, moment: datetime) -> Any:
        """A timestamp as SQLAlchemy's UTCDateTime stores it (SQLite: UTC text)."""
        if self.pg:
            return moment
        return moment.astimezone(UTC).replace(tzinfo=None).isoformat(" ", "microseconds")

    @staticmethod
    def when_out(value: Any) -> datetime:
        """A timestamp read back, aware and in UTC (SQLite keeps UTC text without an offset)."""
        if isinstance(value, str):
            return datetime.fromisoformat(value).replace(tzinfo=UTC)
        return value.astimezone(UTC)  # type: ignore[no-any-return]

    @staticmethod
    def json_in(value: Any) -> str:
        """JSON text (orjson: a tenth of the stdlib's time for a hand's data)."""
        return orjson.dumps(value).decode()

    @staticmethod
    def json_out(value: Any) -> Any:
        """A JSON column's value: text on SQLite, already decoded by psycopg."""
        return orjson.loads(value) if isinstance(value, str) else value


def _raw_cursor(driver: Any, name: str = "") -> Any:
    """A psycopg cursor that sends the statement as written, `$n` placeholders and all (a
    server-side one if named). Its `%s` cursor parses every statement of over 50 parameters
    again (its cache stops there): ~100 µs of CPU for a hand's folded writes, ~27 µs raw."""
    from psycopg import RawCursor, RawServerCursor  # not imported on SQLite

    return RawServerCursor(driver, name) if name else RawCursor(driver)


@cache
def _numbered(sql: str) -> str:
    """`?` placeholders as PostgreSQL's `$1`, `$2`… (no statement has a `?` of its own)."""
    pieces = sql.split("?")
    return "".join(f"{piece}${n}" for n, piece in enumerate(pieces[:-1], 1)) + pieces[-1]


def insert_rows(into: str, rows: Sequence[Sequence[Any]], then: str = "") -> Statement | None:
    """`INSERT INTO <into> VALUES (…), (…) <then>`: a hand's few rows in one statement (one
    to send and run, not one per row), for `Sql.run_all`; None when there are none."""
    if not rows:
        return None
    values = _values(len(rows), len(rows[0]))
    return f"INSERT INTO {into} VALUES {values}{then}", [v for row in rows for v in row]


@cache
def _values(rows: int, width: int) -> str:
    return ", ".join([f"({placeholders(width)})"] * rows)


def placeholders(n: int) -> str:
    """`?, ?, …` for an IN list of `n` values."""
    return ", ".join("?" * n)
