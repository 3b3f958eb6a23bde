"""Shared fixtures: a migrated database on SQLite (a temp file) and on the local PostgreSQL."""

from __future__ import annotations

import atexit
import functools
import itertools
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, make_url, text
from sqlalchemy.engine import Engine

from storage.db import make_engine
from storage.migrate import upgrade
from storage.schema_head import HEAD, current, ensure_schema

# Shared CI machines are slow and noisy: properties are checked without a time deadline. In
# CI the examples are derandomized, so a run can be reproduced; developers' runs explore.
settings.register_profile("jifen", deadline=None, derandomize=bool(os.environ.get("CI")))
settings.load_profile("jifen")

PG_ADMIN_URL = os.environ.get("JIFEN_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
_chat_ids = itertools.count(-1_000_001, -1)


def postgres_available() -> bool:
    try:
        with create_engine(PG_ADMIN_URL, connect_args={"connect_timeout": 3}).connect() as conn:
            conn.execute(text("SELECT 1"))
        return True
    except Exception:
        return False


@functools.cache
def _migrated_sqlite_file() -> Path:
    """A SQLite file Alembic brought to head once in this process (removed at its end)."""
    folder = Path(tempfile.mkdtemp(prefix="jifen-schema-"))
    path = folder / "head.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    upgrade(engine)
    assert current(engine) == HEAD
    engine.dispose()  # the last connection closed: the WAL is back in the file
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return path


@contextmanager
def migrated(url: str) -> Iterator[Engine]:
    """An engine on ``url`` with the schema at head (as the bot leaves it on start), disposed
    afterwards. A new SQLite file starts as a copy of one migrated once (Alembic's revisions
    take a fifth of a second a file); any other database is upgraded if it is not at head."""
    address = make_url(url)
    if address.get_backend_name() == "sqlite" and address.database not in (None, "", ":memory:"):
        target = Path(address.database)
        if not target.exists():
            shutil.copyfile(_migrated_sqlite_file(), target)
    engine = make_engine(url)
    ensure_schema(engine)
    try:
        yield engine
    finally:
        engine.dispose()


@contextmanager
def fresh_pg_database(prefix: str, why: str = "") -> Iterator[str]:
    """A new, empty PostgreSQL database, dropped afterwards; skips when no server answers."""
    if not postgres_available():
        pytest.skip(f"no PostgreSQL server answers at {PG_ADMIN_URL}{why}")
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield PG_ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A fresh, migrated PostgreSQL database for this test session, dropped afterwards."""
    with fresh_pg_database("jifen_test") as url, migrated(url):
        yield url


@pytest.fixture
def pg_engine(pg_url: str) -> Iterator[Engine]:
    """The product's engine on the session's PostgreSQL database (`pg_url`)."""
    engine = make_engine(pg_url)
    try:
        yield engine
    finally:
        engine.dispose()


@pytest.fixture
def sqlite_url(tmp_path: object) -> str:
    return f"sqlite:///{tmp_path}/jifen.sqlite3"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def engine(request: pytest.FixtureRequest, tmp_path: object) -> Iterator[Engine]:
    """A migrated engine on each backend."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path}/jifen.sqlite3"
    else:
        url = request.getfixturevalue("pg_url")
    with migrated(url) as migrated_engine:
        yield migrated_engine


@pytest.fixture
def sqlite_engine(tmp_path: Path) -> Iterator[Engine]:
    """A migrated SQLite file database."""
    with migrated(f"sqlite:///{tmp_path}/jifen.sqlite3") as engine:
        yield engine


@pytest.fixture
def chat_id() -> int:
    """A chat id no other test uses (PostgreSQL is shared by the session)."""
    return next(_chat_ids)
