"""Engines: SQLite (WAL, busy timeout, foreign keys, writers begin IMMEDIATE) or PostgreSQL
(psycopg 3). JSON columns are written and read with orjson."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine

BUSY_TIMEOUT_MS = 30_000


def normalise_url(url: str) -> str:
    """Accept plain postgres:// URLs and pick the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


def make_engine(url: str) -> Engine:
    """The engine of the database at `url` (an SQLAlchemy URL; plain postgres:// too)."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        return _sqlite_engine(url)
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=10,
        json_serializer=_json,
        json_deserializer=orjson.loads,
    )


def _sqlite_engine(url: str) -> Engine:
    path = url.split("///", 1)[1] if "///" in url else ""
    if path and path != ":memory:":
        Path(path).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
        pool_use_lifo=True,  # the connection used last: its page cache is warm
        json_serializer=_json,
        json_deserializer=orjson.loads,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # transactions are begun explicitly (`begin`)
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA cache_size=-32000")  # 32 MB of pages (default 2 MB): long ledgers
        cur.close()

    return engine


def begin(db: Connection, *, write: bool) -> None:
    """Start the transaction SQLAlchemy has just begun on `db`. pysqlite leaves BEGIN to us
    (in autocommit, as set up above); a writer takes SQLite's write lock up front (IMMEDIATE: no
    read-then-upgrade "database is locked"). PostgreSQL's driver begins by itself."""
    if db.dialect.name == "sqlite":
        db.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")
