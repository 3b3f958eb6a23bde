"""The offline console: the real bot (same Application, handlers and database) fed from stdin."""

from __future__ import annotations

import sys
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import TextIO

from bot.app import build_application
from bot.console_io import run_console
from bot.offline import OfflineBotApi, OfflineRequest
from bot.settings import Settings
from storage.db import make_engine
from storage.schema_head import ensure_schema


async def run_console_app(
    database_url: str,
    admins: Collection[str],
    *,
    files_dir: Path,
    lines: Iterable[str] | TextIO | None = None,
    out: TextIO | None = None,
) -> None:
    """Upgrade the database, build the bot over an offline Bot API and play the input."""
    engine = make_engine(database_url)
    ensure_schema(engine)
    api = OfflineBotApi()
    config = Settings.given(database_url=database_url, rate_limit=False, flood=None)
    application = build_application(
        config, engine=engine, request=OfflineRequest(api), updates_request=OfflineRequest(api)
    )
    try:
        await run_console(
            application,
            api,
            sys.stdin if lines is None else lines,
            sys.stdout if out is None else out,
            admins=admins,
            files_dir=files_dir,
        )
    finally:
        engine.dispose()
