"""Engines and transactions: SQLite (WAL, busy timeout, foreign keys) or PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine

from storage.sql import Sql

BUSY_TIMEOUT_MS = 30_000


def normalise_url(url: str) -> str:
    """Accept plain postgres:// URLs and pick the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def make_engine(url: str) -> Engine:
    """The engine of the database at `url` (an SQLAlchemy URL; plain postgres:// too)."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        return _sqlite_engine(url)
    from storage import loop_wait  # psycopg: not imported on SQLite

    engine = create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=10)
    event.listen(engine, "do_connect", loop_wait.connect)  # batches wait on the loop
    event.listen(engine, "connect", _pg_json)
    return engine


def _pg_json(dbapi_conn: Any, _record: Any) -> None:
    """JSON columns read with orjson (a fifth of the stdlib's time), as `Sql.json_in` writes."""
    import orjson
    from psycopg.types.json import set_json_loads

    set_json_loads(orjson.loads, dbapi_conn)


def _sqlite_engine(url: str) -> Engine:
    path = url.split("///", 1)[1] if "///" in url else ""
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # transactions are begun explicitly below
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA cache_size=-32000")  # 32 MB of pages (default 2 MB): long ledgers
        # A group commit runs each write in a savepoint: SQLite keeps the pages it changes in a
        # statement journal, spilled to a temporary file past 64 KiB (a hand touches ~20 pages),
        # ~25 file writes an update. In memory it is a few dozen KB, dropped at each release.
        cur.execute("PRAGMA temp_store=MEMORY")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # Writers take the lock up front: no read-then-upgrade "database is locked" deadlock.
        conn.exec_driver_sql(
            "BEGIN IMMEDIATE" if conn.get_execution_options().get("write") else "BEGIN"
        )

    return engine


def writer(engine: Engine) -> Engine:
    """The engine for write transactions (SQLite: BEGIN IMMEDIATE)."""
    return engine.execution_options(write=True)


@contextmanager
def write_transaction(engine: Engine) -> Iterator[Sql]:
    """One write transaction (SQLite: BEGIN IMMEDIATE): committed on success, rolled back on
    any error."""
    with writer(engine).begin() as connection:
        yield Sql(connection)


@contextmanager
def read_transaction(engine: Engine) -> Iterator[Sql]:
    """A read-only transaction (a consistent snapshot)."""
    with engine.begin() as connection:
        yield Sql(connection)
