"""Start-up phases of the console, timed in a fresh interpreter (run by ``bench.profile``).

``python -m bench.startup_probe <sqlite file>`` prints one JSON object: seconds spent in each
phase, in order. Only the standard library is imported before the first phase.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any


def _phases(db: Path) -> dict[str, float]:
    marks: dict[str, float] = {}
    last = time.perf_counter()

    def mark(name: str) -> None:
        nonlocal last
        now = time.perf_counter()
        marks[name] = round(now - last, 4)
        last = now

    import telegram.ext  # noqa: F401

    mark("import telegram (PTB, httpx, tornado)")
    import sqlmodel  # noqa: F401

    mark("import sqlalchemy + sqlmodel + pydantic")
    import storage.models  # noqa: F401

    mark("import storage.models (table classes)")
    import bot.app

    mark("import bot.app (handlers, service, rendering)")
    from storage.migrate import upgrade

    mark("import alembic (storage.migrate)")
    import bot.console.start  # noqa: F401

    mark("import bot.console.start (console, Bot API stand-in)")
    from storage.db import make_engine

    engine = make_engine(f"sqlite:///{db}")
    upgrade(engine)
    mark("alembic upgrade (database at head)")
    app = _build(engine, db)
    mark("build_application")
    asyncio.run(_start_stop(app))
    mark("initialize + start + stop")
    return marks


def _build(engine: Any, db: Path) -> Any:
    from bot.app import build_application
    from bot.console.offline import OfflineBotApi, OfflineRequest
    from bot.settings import Settings

    api = OfflineBotApi()
    config = Settings.given(database_url=f"sqlite:///{db}", rate_limit=False, flood=None)
    return build_application(
        config, engine=engine, request=OfflineRequest(api), updates_request=OfflineRequest(api)
    )


async def _start_stop(app: Any) -> None:
    await app.initialize()
    await app.start()
    await app.stop()
    await app.shutdown()


if __name__ == "__main__":
    print(json.dumps(_phases(Path(sys.argv[1])), ensure_ascii=False))
