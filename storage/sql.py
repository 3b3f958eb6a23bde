"""Plain DBAPI statements inside a SQLAlchemy transaction: the handle of `storage.gateway`.

A statement costs ~5 µs through the driver and 70–400 µs through SQLAlchemy's statement
building and the ORM (`bench/RESULTS.md`). The statements are written once in SQLite's `?`
style, numbered for PostgreSQL (`$1`, `$2`…, sent as written by psycopg's raw cursors, which
the connection keeps: `storage.cursors`), and run on the connection of the caller's
transaction, so they commit (or roll back) with everything else it did. On PostgreSQL, the
writes of a `folded` block (a use case's) go as one statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from functools import cache, lru_cache
from typing import Any

import orjson
from sqlalchemy.engine import Connection

from storage.cursors import cursors_of, raw_cursor

Row = tuple[Any, ...]
Statement = tuple[str, Sequence[Any]]  # SQL and its parameters
ReadKey = tuple[str, tuple[Any, ...]]  # a read, as `storage.read_ahead` matches it
# The most parameters of the writes held for one statement (`Sql.folded`); PostgreSQL takes
# 65,535 a statement.
HELD_PARAMS_MOST = 30_000
# The most statement texts whose derived forms are kept (numbered, names, folds): texts are
# few, but an IN list's length or a fold's mix of row counts makes a text of its own.
TEXTS_KEPT = 4096


class Sql:
    """The raw connection of one transaction, with the dialect's few differences adapted."""

    __slots__ = (
        "_ahead",
        "_conn",
        "_cursor",
        "_cursors",
        "_first",
        "_folding",
        "_held",
        "_held_params",
        "_held_tables",
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
        # SQLite: one cursor for the transaction's statements. PostgreSQL: the connection's
        # cursor of each statement (`storage.cursors`). Each statement's rows are read before
        # the next runs; a result not read (a write's, queued in the pipeline) is dropped.
        self._cursors = cursors_of(connection) if self.pg else None
        self._cursor: Any = None if self.pg else driver.cursor()
        self.engine = connection.engine  # for a read that streams after this one (/export)
        self.moment = datetime.now(UTC)  # the time of everything this write records
        self._stamp: Any = None
        self._more: list[tuple[bytes, Any]] = []  # `send_first`'s statements and cursors
        self._ahead: dict[ReadKey, list[Row]] | None = None  # answers sent ahead, not yet asked
        self._reads: list[ReadKey] = []  # reads since `lock_and_read`, until the first write
        self._recording = False  # from `lock_and_read` until the first write
        self._first: tuple[Statement, Statement, Sequence[ReadKey]] | None = None  # sent, unread
        self._folding = False  # in `folded` (PostgreSQL)
        self._held: list[Statement] = []  # writes not sent yet (`folded`)
        self._held_tables: set[str] = set()  # the tables they write
        self._held_params = 0

    def stamp(self) -> Any:
        """`moment` as stored (formatted once)."""
        if self._stamp is None:
            self._stamp = self.when(self.moment)
        return self._stamp

    def _sql(self, sql: str) -> Any:
        return _pg_query(sql) if self.pg else sql

    def folded(self) -> AbstractContextManager[None]:
        """PostgreSQL: the plain writes of the block (an INSERT, UPDATE or DELETE by `run`,
        whose result is not read) are held and sent as one statement (the others in its WITH)
        at the block's end: one statement for the client to send and the server to run, not
        one each (~15 µs of the client's CPU a statement). The order of effects stays that of
        the calls: a statement that names a table a held write writes (a read, or a write of
        the same table, which one statement could not see or would touch twice) first sends
        those held, and so does any other write (one sent now might need a held row). Every
        part of one statement sees the database as it was before it, as each would in turn,
        and the foreign keys are checked at its end. This holds as long as no view, function
        or trigger reads or writes a table its statement does not name. If the block raises,
        the held writes are dropped: the caller rolls the transaction back. A block within a
        block is the outer one's; on SQLite every statement runs when called."""
        if not self.pg or self._folding:
            return _AS_CALLED
        return _Folded(self)

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[Row]:
        if self._recording or self._ahead is not None:
            found = self._answered(sql, params)
            if found is not None:
                return found
        self._release_for(sql)
        return list(self._execute(sql, params).fetchall())

    def stream(self, sql: str, params: Sequence[Any] = (), size: int = 2000) -> Iterator[Row]:
        """The rows one batch at a time, not all in memory: SQLite's cursor steps as read;
        PostgreSQL's is server-side (named), inside the caller's transaction."""
        self._release_for(sql)
        cursor = raw_cursor(self._conn, "jifen_stream") if self.pg else self._conn.cursor()
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
        (_, lock_cursor), (_, then_cursor), *reads = self._more
        locked, found = lock_cursor.fetchone(), then_cursor.fetchone()
        self._ahead = {
            key: list(cursor.fetchall()) for key, (_, cursor) in zip(ahead, reads, strict=True)
        }
        self._give_back()
        self._recording = True
        return locked, found

    def send_first(self, lock: Statement, then: Statement, ahead: Sequence[ReadKey] = ()) -> None:
        """PostgreSQL: send `lock_and_read`'s statements now, read nothing: a batch sends every
        write's before running any (`storage.group_commit`), and `lock_and_read` with the same
        statements then only reads their answers."""
        self._release()
        assert self._cursors is not None
        self._give_back()
        for sql, params in (lock, then, *ahead):
            query = _pg_query(sql)
            cursor = self._cursors.take(query)  # its own: others may run meanwhile
            cursor.execute(query, params)
            self._more.append((query, cursor))
        self._first = (lock, then, ahead)

    def _give_back(self) -> None:
        """`send_first`'s cursors, their answers read (or no longer wanted)."""
        assert self._cursors is not None
        for query, cursor in self._more:
            self._cursors.give_back(query, cursor)
        self._more = []

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
        self._release_for(sql)
        found: Row | None = self._execute(sql, params).fetchone()
        return found

    def run(self, sql: str, params: Sequence[Any] = ()) -> None:
        """A statement whose result is not read (in `folded`, a plain write is held)."""
        self._wrote()  # see `_answered`
        if self._folding and (table := _written(sql)) is not None:
            self._hold(table, sql, params)
            return
        self._release()
        self._execute(sql, params)

    def many(self, sql: str, params: Sequence[Sequence[Any]]) -> None:
        self._wrote()
        self._release()
        if params:
            cursor, query = self._now(sql)
            cursor.executemany(query, params)

    def run_all(self, statements: Iterable[Statement | None]) -> None:
        """Writes whose results are not read, `folded`: one statement on PostgreSQL where
        they touch tables of their own, on SQLite one after another."""
        with self.folded():
            for statement in statements:
                if statement is not None:
                    self.run(*statement)

    def _fold_end(self, raised: bool) -> None:
        """`folded`'s end: the held writes are sent, or dropped if the block raised."""
        try:
            if not raised:
                self._release()
        finally:
            self._folding = False
            self._drop_held()

    def _hold(self, table: str, sql: str, params: Sequence[Any]) -> None:
        if self._held and (
            not _names(sql).isdisjoint(self._held_tables)
            or self._held_params + len(params) > HELD_PARAMS_MOST
        ):
            self._release()
        self._held.append((sql, tuple(params)))  # as called, whatever the caller does next
        self._held_tables.add(table)
        self._held_params += len(params)

    def _release_for(self, sql: str) -> None:
        """Send the held writes before a read of a table they write."""
        if self._held and not _names(sql).isdisjoint(self._held_tables):
            self._release()

    def _release(self) -> None:
        """Send the held writes: one statement, the others in its WITH."""
        if not self._held:
            return
        held = self._held
        self._drop_held()
        if len(held) == 1:
            sql, params = held[0]
        else:
            sql = _fold(tuple(sql for sql, _ in held))
            params = [p for _, part in held for p in part]
        self._execute(sql, params)

    def _execute(self, sql: str, params: Sequence[Any]) -> Any:
        """Run `sql` now, on its cursor; its rows are read before the next statement runs."""
        cursor, query = self._now(sql)
        return cursor.execute(query, params)

    def _now(self, sql: str) -> tuple[Any, Any]:
        """The cursor `sql` runs on now, and `sql` as sent."""
        if self._cursors is None:
            return self._cursor, sql
        query = _pg_query(sql)
        return self._cursors.now(query), query

    def _drop_held(self) -> None:
        self._held, self._held_tables, self._held_params = [], set(), 0

    def insert(self, sql: str, params: Sequence[Any]) -> int:
        """Run an INSERT and return the new row's id."""
        self._wrote()
        self._release()
        if self.pg:
            found = self._execute(sql + " RETURNING id", params).fetchone()
            return int(found[0])
        return int(self._execute(sql, params).lastrowid)

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


class _Folded:
    """`Sql.folded`'s block (a plain class: a generator's context manager costs ~3 µs)."""

    __slots__ = ("_db",)

    def __init__(self, db: Sql) -> None:
        self._db = db

    def __enter__(self) -> None:
        self._db._folding = True

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        self._db._fold_end(raised=kind is not None)


_AS_CALLED = nullcontext()  # `folded` where statements run as called


@lru_cache(TEXTS_KEPT)
def _pg_query(sql: str) -> bytes:
    """A statement as sent to PostgreSQL: `?` placeholders numbered `$1`, `$2`… (no statement
    has a `?` of its own), encoded once (psycopg would encode it at every call)."""
    pieces = sql.split("?")
    numbered = "".join(f"{piece}${n}" for n, piece in enumerate(pieces[:-1], 1)) + pieces[-1]
    return numbered.encode()


_WRITE = re.compile(r"(?:insert into|update|delete from) (\w+)[\s(]")
_NAME = re.compile(r"\w+")


@lru_cache(TEXTS_KEPT)
def _written(sql: str) -> str | None:
    """The table a plain INSERT, UPDATE or DELETE writes; None for any other statement (one
    that names its table otherwise, `ONLY` or with its schema, too)."""
    found = _WRITE.match(sql.lower())
    return found.group(1) if found and found.group(1) != "only" else None


@lru_cache(TEXTS_KEPT)
def _names(sql: str) -> frozenset[str]:
    """The words of a statement, as PostgreSQL reads names (lower case): among them, every
    table it reads or writes."""
    return frozenset(_NAME.findall(sql.lower()))


@lru_cache(TEXTS_KEPT)
def _fold(statements: tuple[str, ...]) -> str:
    """Writes as one statement: the last, with the others in its WITH."""
    *first, last = statements
    return "WITH " + ", ".join(f"w{i} AS ({sql})" for i, sql in enumerate(first)) + " " + last


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
