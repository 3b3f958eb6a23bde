"""Engines: SQLite (WAL, busy timeout, foreign keys, writers begin IMMEDIATE; a file created
0600, never created again behind the engine's back, and checked at every commit to be the one
it opened; its WAL kept to a share of a small volume, `storage.disk`) or PostgreSQL (psycopg
3). JSON columns are written and read with orjson."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson
from sqlalchemy import create_engine, event
from sqlalchemy.engine import Connection, Engine, make_url

from storage import disk

BUSY_TIMEOUT_MS = 30_000


def normalise_url(url: str) -> str:
    """Accept plain postgres:// URLs and pick the psycopg 3 driver."""
    for prefix in ("postgres://", "postgresql://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def _json(value: Any) -> str:
    return orjson.dumps(value).decode()


class FileReplaced(RuntimeError):
    """The SQLite file at the engine's path is gone or another one: a write would be lost."""


def _identity(path: str) -> tuple[int, int] | None:
    try:
        return (found := os.stat(path)).st_dev, found.st_ino
    except FileNotFoundError:
        return None


def make_engine(url: str, *, create: bool = True) -> Engine:
    """The engine of the database at `url` (an SQLAlchemy URL; plain postgres:// too);
    `create=False`: an SQLite file that does not exist is not made."""
    url = normalise_url(url)
    if url.startswith("sqlite"):
        return _sqlite_engine(url, create)
    return create_engine(
        url,
        pool_pre_ping=True,
        pool_size=10,
        max_overflow=10,
        json_serializer=_json,
        json_deserializer=orjson.loads,
    )


def _sqlite_engine(url: str, create: bool) -> Engine:
    args: dict[str, Any] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
    database = make_url(url).database or ""
    path = os.path.abspath(database) if database not in ("", ":memory:") and "?" not in url else ""
    if path and create and not os.path.exists(path):  # 0600 whatever the umask (-wal, -shm too)
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        os.chmod(path, 0o600)
    opened = _identity(path) if path else None

    def check(*_: Any) -> None:
        if _identity(path) != opened or opened is None:
            raise FileReplaced(f"{database} is not the database file this process opened")

    def connect() -> sqlite3.Connection:  # never creates one: an empty file is not the book
        check()
        found: sqlite3.Connection = sqlite3.connect(f"file:{quote(path)}?mode=rw", uri=True, **args)
        return found

    engine = create_engine(
        url,
        connect_args=args,
        pool_use_lifo=True,  # the connection used last: its page cache is warm
        json_serializer=_json,
        json_deserializer=orjson.loads,
        **({"creator": connect} if path else {}),
    )
    if path:
        event.listen(engine, "commit", check)

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None  # the driver begins nothing: `_on_begin` does
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA cache_size=-32000")  # 32 MB of pages (default 2 MB): long ledgers
        if path:  # a small volume: the WAL folded back before it fills it (`storage.disk`)
            cur.execute(f"PRAGMA wal_autocheckpoint={disk.wal_pages(path)}")
        cur.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        """Every transaction SQLAlchemy begins (SQLAlchemy's recipe for pysqlite: the driver
        itself would autocommit, or begin only before a write); a writer's takes SQLite's
        write lock up front (IMMEDIATE: no read-then-upgrade "database is locked")."""
        writes = conn.get_execution_options().get(WRITES, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")

    return engine


WRITES = "jifen_writes"  # a connection's execution option: its transactions write


def writing(db: Connection) -> Connection:
    """`db`, whose transactions write: on SQLite they begin IMMEDIATE (PostgreSQL: the same
    as any; its driver begins by itself)."""
    return db.execution_options(**{WRITES: True})
