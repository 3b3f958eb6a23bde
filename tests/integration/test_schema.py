"""The migrations build exactly the schema the models describe (no drift)."""

from __future__ import annotations

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine
from sqlmodel import SQLModel

import storage.models  # noqa: F401  (registers the tables)
from storage import schema_head
from storage.migrate import alembic_config


def test_migrations_match_the_models(engine: Engine) -> None:
    with engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn), SQLModel.metadata)
    assert diff == []


def test_the_head_the_bot_checks_is_alembic_s(engine: Engine) -> None:
    """The start-up check (`storage.schema_head`) knows the newest revision, and a migrated
    database is at it (so the bot starts without loading Alembic)."""
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head == schema_head.HEAD
    assert schema_head.current(engine) == head
