"""PostgreSQL: a connection's raw cursors, one per statement, kept from one use to the next.

psycopg gives a cursor new adapters (its `Transformer`, with the dumpers and loaders it makes
as it meets each type) whenever it runs a statement other than the one it ran last, and a new
cursor costs more still: ~9 µs of the client's CPU a statement, against ~16 µs for the rest
of sending one (`bench/RESULTS.md`). So each statement runs on a cursor of its own, kept with
the connection (SQLAlchemy's `info` of the pooled connection, dropped with it), which ran it
before and reuses what it made. A statement is the same when its text is the same object:
`storage.sql` encodes each text once.

A cursor's result is replaced by its next statement's. A statement whose result is read at
once (or never: a write's) may run on the one cursor of its text. One sent ahead, whose result
is read later (`Sql.send_first`), takes a cursor of its own (`take`) and gives it back once
read, so the same statement sent ahead for several writes of a batch keeps each answer.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy.engine import Connection

INFO_KEY = "jifen.cursors"
# The most statements whose cursors a connection keeps: statements are few, but an IN list's
# length makes a text of its own, and each cursor keeps its last result.
KEPT_MOST = 1000


class Cursors:
    """The cursors of one psycopg connection, by statement (bytes, as sent)."""

    __slots__ = ("_driver", "_free", "_now")

    def __init__(self, driver: Any) -> None:
        self._driver = driver
        self._now: dict[bytes, Any] = {}  # the cursor of a statement read at once
        self._free: dict[bytes, list[Any]] = {}  # cursors of statements sent ahead, not lent

    def now(self, query: bytes) -> Any:
        """The cursor of `query` when its result is read before the next statement runs."""
        cursor = self._now.get(query)
        if cursor is None:
            if len(self._now) >= KEPT_MOST:
                self._now.clear()
            cursor = self._now[query] = raw_cursor(self._driver)
        return cursor

    def take(self, query: bytes) -> Any:
        """A cursor for `query` sent ahead: no one else's until given back."""
        free = self._free.get(query)
        return free.pop() if free else raw_cursor(self._driver)

    def give_back(self, query: bytes, cursor: Any) -> None:
        """`take`'s cursor, its result read."""
        free = self._free.get(query)
        if free is None:
            if len(self._free) >= KEPT_MOST:
                return
            free = self._free[query] = []
        free.append(cursor)


def cursors_of(connection: Connection) -> Cursors:
    """The cursors kept with `connection`'s psycopg connection (made on first use)."""
    info = connection.connection.info
    found: Cursors | None = info.get(INFO_KEY)
    if found is None:
        found = info[INFO_KEY] = Cursors(connection.connection.driver_connection)
    return found


def raw_cursor(driver: Any, name: str = "") -> Any:
    """A psycopg cursor that sends the statement as written, `$n` placeholders and all (a
    server-side one if named). Its `%s` cursor parses every statement of over 50 parameters
    again (its cache stops there): ~100 µs of CPU for a hand's folded writes, ~27 µs raw."""
    from psycopg import RawCursor, RawServerCursor  # not imported on SQLite

    return RawServerCursor(driver, name) if name else RawCursor(driver)
