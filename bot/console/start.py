"""The offline console: the real bot (same Application, handlers and database) fed from stdin."""

from __future__ import annotations

import asyncio
import json
import secrets
import sys
import time
from collections.abc import Collection, Coroutine, Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlencode

from sqlalchemy import Engine
from sqlalchemy.engine import make_url

from bot.app import build_application
from bot.console.offline import OfflineBotApi, OfflineRequest
from bot.console.session import FIRST_SPEAKER, console_user, run_console
from bot.miniapp import auth
from bot.ptb_types import AnyApplication
from bot.settings import Settings
from service.app import Place
from storage.db import make_engine
from storage.gateway.chats import chats_and_hands
from storage.schema_head import ensure_schema

CONSOLE_CHAT = -100100  # run_console's chat
LOCAL_APP_MAX_AGE = 7 * 86400.0  # the printed URL works for the whole session


async def run_console_app(
    database_url: str,
    admins: Collection[str],
    *,
    files_dir: Path,
    lines: Iterable[str] | TextIO | None = None,
    out: TextIO | None = None,
    note: TextIO | None = None,
    app_port: int | None = None,
) -> None:
    """Upgrade the database, say what it holds (on `note`, default stderr), build the bot over
    an offline Bot API and play the input; with `app_port`, serve the Mini App on loopback
    meanwhile (0: a free port) and print its URL."""
    engine = make_engine(database_url)
    ensure_schema(engine)
    print(f"jifen console: {holds(engine, database_url)}", file=note or sys.stderr)
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
    app = application.bot_data["service"].app
    token = await asyncio.to_thread(app.token, Place(CONSOLE_CHAT))
    launch = {
        "auth_date": str(int(time.time())),
        "start_param": token,
        "user": json.dumps(
            {"id": user.id, "first_name": user.first_name, "language_code": user.language_code},
            ensure_ascii=False,
            separators=(",", ":"),
        ),
    }
    from bot.miniapp import server as miniapp  # its server only with --app

    routes = miniapp.routes(application, token=key, max_age=LOCAL_APP_MAX_AGE)
    async with miniapp.serving(routes, listen="127.0.0.1", port=port) as bound:
        fragment = urlencode({"tgWebAppData": auth.sign(launch, key)})
        out.write(f"Mini App (as {name}): http://127.0.0.1:{bound}/app/#{fragment}\n\n")
        out.flush()
        await play


def sqlite_path(database_url: str) -> Path | None:
    """The file of a SQLite URL (None for PostgreSQL or an in-memory database)."""
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite" or url.database in (None, "", ":memory:"):
        return None
    return Path(url.database)


def shown_name(database_url: str) -> str:
    """The database as a person knows it: the file (relative when under the working
    directory), or the URL without its password."""
    path = sqlite_path(database_url)
    if path is None:
        return make_url(database_url).render_as_string(hide_password=True)
    try:
        return str(path.resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def holds(engine: Engine, database_url: str) -> str:
    """E.g. "data/jifen.sqlite3: 2 chats, 14 hands; start fresh with --fresh"."""
    with engine.connect() as conn:
        chats, hands = chats_and_hands(conn)
    name = shown_name(database_url)
    if not chats:
        return f"{name}: a new database"
    return f"{name}: {chats} chat(s), {hands} hand(s); start fresh with --fresh"


def set_aside(database_url: str, now: datetime | None = None) -> Path | None:
    """--fresh: move the SQLite file (with its -wal and -shm) aside under a time-stamped name,
    never deleting it; the new name, or None when there was no file. PostgreSQL: ValueError."""
    path = sqlite_path(database_url)
    if path is None:
        raise ValueError("--fresh works on a SQLite file; give --db PATH for a new one")
    if not path.exists():
        return None
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%d-%H%M%S")
    aside = path.with_name(f"{path.stem}-{stamp}{path.suffix}")
    for suffix in ("-wal", "-shm"):
        extra = path.with_name(path.name + suffix)
        if extra.exists():
            extra.rename(aside.with_name(aside.name + suffix))
    path.rename(aside)
    return aside
