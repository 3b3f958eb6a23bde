"""PostgreSQL: the cursors a connection keeps, one per statement (`storage.cursors`)."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.engine import Connection, Engine

from storage import cursors
from storage.cursors import cursors_of
from storage.sql import Sql

pytestmark = pytest.mark.postgres

LOCK, THEN, AHEAD = "SELECT ?::int", "SELECT ?::int + 10", "SELECT ?::int * 2"


def _send(conn: Connection, n: int) -> Sql:
    """A write's first statements, sent ahead for `n` (as a batch sends each write's)."""
    db = Sql(conn)
    db.send_first((LOCK, (n,)), (THEN, (n,)), [(AHEAD, (n,))])
    return db


def _read(db: Sql, n: int) -> tuple[Any, ...]:
    locked, then = db.lock_and_read((LOCK, (n,)), (THEN, (n,)), [(AHEAD, (n,))])
    return locked, then, db.rows(AHEAD, (n,))


def test_writes_of_one_batch_each_read_their_own_answers(pg_engine: Engine) -> None:
    """Three writes send the same statements before any reads: each reads its own answers,
    in this batch and in the next, which runs on the cursors the first gave back."""
    with pg_engine.connect() as conn:
        driver: Any = conn.connection.driver_connection
        for batch in ((1, 2, 3), (4, 5, 6)):
            with conn.begin(), driver.pipeline():
                sent = [(n, _send(conn, n)) for n in batch]
                assert [_read(db, n) for n, db in sent] == [
                    ((n,), (n + 10,), [(n * 2,)]) for n in batch
                ]


def test_a_statement_runs_on_its_own_kept_cursor(pg_engine: Engine) -> None:
    """The same statement, in one transaction and the next on the pooled connection, runs on
    one cursor; another statement on another. A connection made anew starts afresh."""
    with pg_engine.connect() as conn, conn.begin():
        first = cursors_of(conn)
        Sql(conn).rows("SELECT 1")
        one, other = first.now(b"SELECT 1"), first.now(b"SELECT 2")
        assert one is not other
    with pg_engine.connect() as conn:
        with conn.begin():
            assert cursors_of(conn) is first
            assert Sql(conn).rows("SELECT 1") == [(1,)]
            assert first.now(b"SELECT 1") is one
        conn.invalidate()
    with pg_engine.connect() as conn:
        assert cursors_of(conn) is not first


def test_a_connection_keeps_a_bounded_number_of_cursors(
    pg_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Statements beyond the bound (an IN list of each length is a statement of its own)
    start the kept cursors afresh rather than keep them all."""
    monkeypatch.setattr(cursors, "KEPT_MOST", 3)
    with pg_engine.connect() as conn, conn.begin():
        kept = cursors_of(conn)
        db = Sql(conn)
        early = kept.now(b"SELECT 0")
        for n in range(1, 4):
            assert db.rows(f"SELECT {n}") == [(n,)]
        assert kept.now(b"SELECT 0") is not early
        assert db.rows("SELECT 0") == [(0,)]
