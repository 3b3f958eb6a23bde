"""The offline console: the real bot (same Application, handlers and database) fed from stdin."""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
import time
from collections.abc import Collection, Coroutine, Iterable
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlencode

from bot.app import build_application
from bot.console_io import FIRST_SPEAKER, console_user, run_console
from bot.miniapp import auth
from bot.miniapp import server as miniapp
from bot.offline import OfflineBotApi, OfflineRequest
from bot.ptb_types import AnyApplication
from bot.settings import Settings
from storage.db import make_engine
from storage.migrate import upgrade

CONSOLE_CHAT = -100100  # run_console's chat
LOCAL_APP_MAX_AGE = 7 * 86400.0  # the printed URL works for the whole session


async def run_console_app(
    database_url: str,
    admins: Collection[str],
    *,
    files_dir: Path,
    lines: Iterable[str] | TextIO | None = None,
    out: TextIO | None = None,
    app_port: int | None = None,
) -> None:
    """Upgrade the database, build the bot over an offline Bot API and play the input; with
    `app_port`, serve the Mini App on loopback meanwhile (0: a free port) and print its URL."""
    engine = make_engine(database_url)
    upgrade(engine)
    api = OfflineBotApi()
    config = Settings.given(database_url=database_url, rate_limit=False, flood=None)
    application = build_application(
        config, engine=engine, request=OfflineRequest(api), updates_request=OfflineRequest(api)
    )
    play = run_console(
        application,
        api,
        sys.stdin if lines is None else lines,
        sys.stdout if out is None else out,
        admins=admins,
        files_dir=files_dir,
    )
    try:
        if app_port is None:
            await play
        else:
            await with_local_app(application, api, admins, app_port, play, out or sys.stdout)
    finally:
        engine.dispose()


async def with_local_app(
    application: AnyApplication,
    api: OfflineBotApi,
    admins: Collection[str],
    port: int,
    play: Coroutine[Any, Any, None],
    out: TextIO,
) -> None:
    """The Mini App for the console's chat on 127.0.0.1 while `play` runs: its URL carries
    launch data signed with a key of this session only, for the first admin (else "me")."""
    key = f"0:{secrets.token_urlsafe(24)}"
    name = next(iter(admins), FIRST_SPEAKER)
    user = console_user(name)
    api.set_member(CONSOLE_CHAT, user, "administrator" if admins else "member")
    token = await asyncio.to_thread(application.bot_data["service"].app_token, CONSOLE_CHAT, 0)
    launch = {
        "auth_date": str(int(time.time())),
        "start_param": token,
        "user": json.dumps(
            {"id": user.id, "first_name": user.first_name, "language_code": user.language_code},
            ensure_ascii=False,
            separators=(",", ":"),
        ),
    }
    routes = miniapp.routes(application, token=key, max_age=LOCAL_APP_MAX_AGE)
    async with miniapp.serving(routes, listen="127.0.0.1", port=port) as bound:
        fragment = urlencode({"tgWebAppData": auth.sign(launch, key)})
        out.write(f"Mini App (as {name}): http://127.0.0.1:{bound}/app/#{fragment}\n\n")
        out.flush()
        await play
