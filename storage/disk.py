"""The disk under an SQLite database: the WAL kept to a share of its volume, and a full disk
(SQLITE_FULL) met by folding the WAL back into the database file.

SQLite folds its WAL back (a checkpoint) only every `wal_autocheckpoint` pages, 1000 (4 MB) by
default: on a small volume the WAL alone filled it, and then grew into whatever was freed.
- `wal_pages(path)`: the threshold set on every connection (`storage.db`), at most an eighth
  of the volume, so the WAL alone never fills it;
- `is_full(error)`: SQLite refused a write for space;
- `room(engine)`: the free space, the WAL's size and what the database needs to go on (the
  growth of the file when the WAL is folded back, and room to write);
- `make_room(engine)`: `PRAGMA wal_checkpoint(TRUNCATE)`: the WAL folded back and emptied
  (it fails for space when the file cannot grow by what the WAL adds).
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import exc
from sqlalchemy.engine import Engine

DEFAULT_PAGES = 1000  # SQLite's own wal_autocheckpoint
MIN_PAGES = 16
SHARE = 8  # the WAL is folded back before it holds an eighth of its volume
ROOM = 256 * 1024  # bytes a few writes need beyond what folding the WAL back needs


def wal_pages(path: str, page_size: int = 4096) -> int:
    """The autocheckpoint threshold for a database at `path`: SQLite's default, or less on a
    volume where that much WAL would take more than `1/SHARE` of it."""
    try:
        found = os.statvfs(os.path.dirname(path) or ".")
    except OSError:
        return DEFAULT_PAGES
    volume_pages = found.f_blocks * found.f_frsize // page_size
    return max(MIN_PAGES, min(DEFAULT_PAGES, volume_pages // SHARE))


def is_full(error: BaseException | None) -> bool:
    """SQLite's SQLITE_FULL ("database or disk is full"), raw or through SQLAlchemy."""
    if isinstance(error, exc.DBAPIError):
        error = error.orig
    return isinstance(error, sqlite3.Error) and (
        getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    )


@dataclass(frozen=True)
class Room:
    """Space on the database's volume, in bytes."""

    directory: Path
    free: int
    wal: int  # the WAL file's size (emptied by a TRUNCATE checkpoint)
    fold: int  # what the file grows by when the WAL is folded back

    @property
    def needs(self) -> int:
        return self.fold + ROOM

    @property
    def full(self) -> bool:
        return self.free < self.needs

    def __str__(self) -> str:
        return (
            f"{size(self.free)} free in {self.directory}; the database needs {size(self.needs)} "
            f"(its WAL of {size(self.wal)} folded back: {size(self.fold)}, and room to write)"
        )


def size(n: int) -> str:
    """Bytes for people: `136 KB`, `3.0 MB`."""
    if n < 1024 * 1024:
        return f"{(n + 1023) // 1024} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def room(engine: Engine) -> Room | None:
    """Where an SQLite file database stands for space (None: not one)."""
    database = engine.url.database or ""
    if engine.dialect.name != "sqlite" or database in ("", ":memory:"):
        return None
    path = Path(database).absolute()
    with engine.connect() as conn:
        pages = conn.exec_driver_sql("PRAGMA page_count").scalar_one()
        page_size = conn.exec_driver_sql("PRAGMA page_size").scalar_one()
    wal = Path(f"{path}-wal")
    return Room(
        directory=path.parent,
        free=shutil.disk_usage(path.parent).free,
        wal=wal.stat().st_size if wal.exists() else 0,
        fold=max(0, int(pages) * int(page_size) - path.stat().st_size),
    )


def make_room(engine: Engine) -> bool:
    """Fold the WAL back into the database file and empty it; False when it could not (no
    room for the file to grow, or a reader held it)."""
    try:
        conn = engine.raw_connection()  # outside any transaction: a checkpoint cannot run in one
    except exc.OperationalError:  # not even a connection (as before, when it was one)
        return False
    try:
        cursor = conn.cursor()
        cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        busy = cursor.fetchone()
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()
    return busy is not None and busy[0] == 0
