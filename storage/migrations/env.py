"""Alembic environment: the schema is SQLModel.metadata; runs on a given connection or URL."""

from __future__ import annotations

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlmodel import SQLModel

import storage.models  # noqa: F401  (registers the tables)
from storage.db import make_engine

config = context.config
MIGRATION_LOCK = 7_310_451  # pg_advisory_lock key: several workers may start at once


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=SQLModel.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": MIGRATION_LOCK})
        context.run_migrations()


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _run(connection)
        return
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise SystemExit("alembic: set sqlalchemy.url, or upgrade with `jifen migrate`")
    engine = make_engine(url)
    with engine.connect() as conn:
        _run(conn)
    engine.dispose()


if context.is_offline_mode():
    raise SystemExit("offline (SQL script) migrations are not supported; run `jifen migrate`")
run_migrations_online()
