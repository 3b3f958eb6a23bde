"""Backups of the SQLite database (`jifen backup PATH`, `jifen restore PATH`): an online copy,
checked and moved into place; PostgreSQL's are `pg_dump`'s (docs/storage.md)."""

from __future__ import annotations

import os
import shutil
import sqlite3
import tempfile
from pathlib import Path

from sqlalchemy.engine import Engine, make_url
from sqlalchemy.engine.url import URL

__all__ = ["PG_DUMP_HELP", "BackupError", "BackupNotSupported", "backup", "restore", "sqlite_path"]

PG_DUMP_HELP = (
    "PostgreSQL databases are backed up with pg_dump, not with `jifen backup`:\n"
    "  pg_dump --format=custom --file=jifen.dump '{url}'\n"
    "and restored (into an empty database, with the bot stopped) with:\n"
    "  pg_restore --clean --if-exists --no-owner --dbname='{url}' jifen.dump\n"
    "(pg_dump takes a consistent snapshot while the bot runs.)"
)
BUSY_TIMEOUT_S = 30.0


class BackupError(RuntimeError):
    """The backup (or restore) could not be made; nothing was written at the target."""


class BackupNotSupported(BackupError):
    """Not a SQLite database: the message says how to back it up instead (pg_dump)."""


def _url(engine_or_url: Engine | URL | str) -> URL:
    if isinstance(engine_or_url, Engine):
        return engine_or_url.url
    return make_url(engine_or_url) if isinstance(engine_or_url, str) else engine_or_url


def sqlite_path(engine_or_url: Engine | URL | str) -> Path:
    """The database file of a SQLite engine or URL; BackupNotSupported for anything else."""
    url = _url(engine_or_url)
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database in ("", ":memory:") or database.startswith("file::memory:"):
            raise BackupError("an in-memory SQLite database has no file to back up")
        return Path(database)
    if url.get_backend_name() in ("postgresql", "postgres"):
        shown = url.set(drivername="postgresql").render_as_string(hide_password=True)
        raise BackupNotSupported(PG_DUMP_HELP.format(url=shown))
    raise BackupNotSupported(f"cannot back up a {url.get_backend_name()} database")


def backup(engine_or_url: Engine | URL | str, path: str | os.PathLike[str]) -> Path:
    """Copy the SQLite database to ``path`` (a file; replaced atomically) and return it.

    Consistent while the bot writes. Raises BackupNotSupported for PostgreSQL (use pg_dump) and
    BackupError when the database file does not exist or the copy fails its check.
    """
    source = sqlite_path(engine_or_url)
    if not source.is_file():
        raise BackupError(f"no database at {source}")
    target = Path(path)
    if target.is_dir():
        raise BackupError(f"{target} is a directory; give the backup file's path")
    if target.resolve() == source.resolve():
        raise BackupError("the backup cannot overwrite the database itself")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        src = sqlite3.connect(source, timeout=BUSY_TIMEOUT_S)
        try:
            dst = sqlite3.connect(tmp)
            try:
                src.backup(dst)  # pages=-1: everything in one step, one read transaction
                dst.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
                _check(dst, tmp)
            finally:
                dst.close()
        finally:
            src.close()
        _fsync(tmp)
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except sqlite3.Error as err:
        raise BackupError(f"backup of {source} failed: {err}") from err
    finally:
        tmp.unlink(missing_ok=True)
    return target


def restore(backup_path: str | os.PathLike[str], engine_or_url: Engine | URL | str) -> Path:
    """Put a backup in place of the SQLite database (stop the bot first); returns the path.

    The backup is checked before anything is touched; the database's stale ``-wal``/``-shm``
    files are removed so SQLite does not replay them over the restored copy.
    """
    source = Path(backup_path)
    if not source.is_file():
        raise BackupError(f"no backup at {source}")
    target = sqlite_path(engine_or_url)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        shutil.copyfile(source, tmp)
        conn = sqlite3.connect(tmp)
        try:
            _check(conn, source)
        finally:
            conn.close()
        _fsync(tmp)
        for suffix in ("-wal", "-shm", "-journal"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        os.replace(tmp, target)
        _fsync_dir(target.parent)
    except sqlite3.Error as err:
        raise BackupError(f"{source} is not a usable SQLite backup: {err}") from err
    finally:
        tmp.unlink(missing_ok=True)
    return target


def _check(conn: sqlite3.Connection, name: Path) -> None:
    rows = conn.execute("PRAGMA integrity_check").fetchall()
    if rows != [("ok",)]:
        raise BackupError(f"{name} failed its integrity check: {rows[:5]}")


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:  # not every platform opens directories
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
