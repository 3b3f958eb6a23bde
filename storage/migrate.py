"""Schema upgrades with Alembic (`jifen migrate`; the bot also upgrades on start)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy.engine import Engine

from storage.db import writing

MIGRATIONS = Path(__file__).parent / "migrations"


def alembic_config(engine: Engine | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    if engine is not None:
        cfg.set_main_option("sqlalchemy.url", engine.url.render_as_string(hide_password=False))
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to `revision` (idempotent).

    SQLite changes a column only by rebuilding its table (Alembic's batch mode), and dropping a
    table that others reference breaks their foreign keys for a moment: as SQLite prescribes,
    the keys are not enforced during the upgrade and are checked once, before it commits."""
    _migrate(engine, command.upgrade, revision)


def downgrade(engine: Engine, revision: str) -> None:
    """Take the database back to `revision`, with the foreign keys handled as `upgrade` does."""
    _migrate(engine, command.downgrade, revision)


def _migrate(engine: Engine, step: Any, revision: str) -> None:
    cfg = alembic_config(engine)
    with engine.connect() as conn:
        driver: Any = conn.connection.driver_connection
        sqlite = conn.dialect.name == "sqlite"
        if sqlite:
            driver.execute("PRAGMA foreign_keys=OFF")  # outside a transaction, or ignored
        try:
            with writing(conn).begin():
                cfg.attributes["connection"] = conn
                step(cfg, revision)
                broken = conn.exec_driver_sql("PRAGMA foreign_key_check").all() if sqlite else []
                if broken:
                    raise RuntimeError(f"the migration broke foreign keys: {broken[:5]}")
        finally:
            if sqlite:
                driver.execute("PRAGMA foreign_keys=ON")
