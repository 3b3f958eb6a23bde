"""Engines: SQLite (WAL, busy timeout, foreign keys, writers begin IMMEDIATE) or PostgreSQL
(psycopg 3). JSON columns are written and read with orjson."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Engine

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
        dbapi_conn.isolation_level = None  # transactions are begun explicitly below
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA cache_size=-32000")  # 32 MB of pages (default 2 MB): long ledgers
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
