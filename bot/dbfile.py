"""The SQLite file under the bot: never lost without a word.

- `jifen run` refuses to start when the database file is missing but its directory held one (a
  marker beside it, `.NAME.created`, says since when): restore a backup, or delete the marker to
  start afresh. A first start says plainly that it creates a new, empty database.
- A running bot or console holds a shared lock on the database's directory for its lifetime;
  `jifen restore` refuses while one does.
- The engine refuses to commit into a file that is no longer the one at its path
  (`storage.db.FileReplaced`); the bot then stops (`bot.delivery.transient`).
- `jifen run` (and the health check) refuse a file that fails SQLite's `PRAGMA quick_check`
  (`Damaged`): one line says so and how to restore the last backup.
PostgreSQL databases have none of this (the server keeps them).
"""

from __future__ import annotations

import fcntl
import os
import sqlite3
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import quote

from sqlalchemy.engine import make_url

from storage.db import normalise_url

_held: list[int] = []  # this process's directory locks (released when it exits)


class Missing(RuntimeError):
    """The database is gone though its directory held one: the bot does not start."""


class Damaged(RuntimeError):
    """The database file fails SQLite's quick check: the bot does not start on it."""


def sqlite_file(url: str) -> Path | None:
    """The SQLite file of `url` (None: PostgreSQL, or in memory)."""
    parsed = make_url(normalise_url(url))
    database = parsed.database or ""
    if parsed.get_backend_name() != "sqlite" or database in ("", ":memory:") or parsed.query:
        return None
    return Path(database).absolute()


def marker(path: Path) -> Path:
    """The file that says a database was kept at `path`."""
    return path.with_name(f".{path.name}.created")


def before_start(url: str) -> str | None:
    """`Missing` when the database file is gone but was there before; a line to log when a
    first start creates it; None when it is there (or not a file)."""
    path = sqlite_file(url)
    if path is None or path.exists():
        return None
    mark = marker(path)
    if mark.exists():
        since = mark.read_text(encoding="utf-8").strip()
        raise Missing(
            f"the database {path} is missing, but there was one ({since}). If it was moved or "
            f"deleted, put it back or restore a backup (jifen restore BACKUP); to start an "
            f"empty one instead, delete {mark}"
        )
    return f"no database at {path} yet: creating a new, empty one"


def check_intact(url: str) -> None:
    """`Damaged` when the SQLite file of `url` is there but fails `PRAGMA quick_check` (or is
    no SQLite database at all); nothing for PostgreSQL or a file not made yet."""
    path = sqlite_file(url)
    if path is None or not path.is_file():
        return
    problem = quick_check(path)
    if problem is not None:
        raise Damaged(
            f"the database {path} is damaged (PRAGMA quick_check: {problem}). Restore the last "
            f"backup with the bot stopped: jifen restore BACKUP (this replaces the damaged file: "
            f"copy it aside first to keep it)"
        )


def quick_check(path: Path) -> str | None:
    """SQLite's `quick_check` of the file (through its WAL): None when it says ok, else its
    first finding on one line."""
    try:
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=rw", uri=True, timeout=30)
        try:
            rows = conn.execute("PRAGMA quick_check(1)").fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError as err:  # not a database, or a page unreadable at the start
        return str(err)
    found = " ".join(str(rows[0][0]).split()) if rows else "no answer"
    return None if found == "ok" else found[:300]


def after_start(url: str) -> None:
    """Mark the database's directory as holding it (once)."""
    path = sqlite_file(url)
    if path is not None and path.exists() and not marker(path).exists():
        since = datetime.now(UTC).isoformat(timespec="seconds")
        marker(path).write_text(f"jifen database here since {since}\n", encoding="utf-8")


def hold(url: str) -> None:
    """This process works on the database: a shared lock on its directory until it exits."""
    path = sqlite_file(url)
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.parent, os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_SH)
    _held.append(fd)


def in_use(url: str) -> bool:
    """Whether another process (a bot, a console) holds the database now."""
    path = sqlite_file(url)
    if path is None or not path.parent.is_dir():
        return False
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
