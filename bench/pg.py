"""A throw-away PostgreSQL database on the local server (created from ``test``, then dropped)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text

ADMIN_URL = os.environ.get("JIFEN_BENCH_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/test")


def available() -> bool:
    """Whether the server answers (within 3 seconds)."""
    engine = create_engine(ADMIN_URL, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        return True
    except Exception:
        return False
    finally:
        engine.dispose()


@contextmanager
def fresh_database(template: str | None = None) -> Iterator[str]:
    """The URL of a new empty database (a copy of the one at URL ``template``), dropped on
    exit."""
    name = f"jifen_bench_{uuid.uuid4().hex[:10]}"
    admin = create_engine(ADMIN_URL, isolation_level="AUTOCOMMIT")
    copy = f' TEMPLATE "{template.rsplit("/", 1)[1]}"' if template else ""
    try:
        with admin.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"{copy}'))
        yield ADMIN_URL.rsplit("/", 1)[0] + "/" + name
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()
