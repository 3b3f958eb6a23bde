"""The schema upgrade on start, without Alembic when there is nothing to do: the database's
revision is read with one query and compared with the newest one here (a test keeps `HEAD`
equal to Alembic's head). Only an upgrade imports Alembic and the models (~13 MB the bot
would otherwise keep for good)."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Engine
from sqlalchemy.exc import DBAPIError

HEAD = "0024_around_the_game"


def current(engine: Engine) -> str | None:
    """The database's schema revision (None: none yet)."""
    try:
        with engine.connect() as conn:
            found = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    except DBAPIError:  # no alembic_version table: a new database
        return None
    return None if found is None else str(found)


def ensure_schema(engine: Engine) -> None:
    """Upgrade the schema unless it is at `HEAD` already."""
    if current(engine) != HEAD:
        from storage.migrate import upgrade

        upgrade(engine)
