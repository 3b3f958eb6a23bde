"""The Mini App over the real PTB application and the Bot API emulator, served on loopback: a
group with four members (Ann the creator), launch data signed as Telegram signs it."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
from sqlalchemy.engine import Engine
from telegram import Update

from bot.app import build_application
from bot.miniapp import auth
from bot.miniapp import server as miniapp
from bot.settings import Settings
from tests.emulator.api import Chat, FakeBotApi, OutboxEntry, User
from tests.emulator.request import EmulatorRequest

TOKEN = "123:TEST"
MAX_AGE = 86400.0
GROUP = Chat(-100500, "supergroup", title="table")
PLAYERS = [
    User(101 + i, name, username=name.lower(), language_code="en")
    for i, name in enumerate(("Ann", "Bob", "Cat", "Dan"))
]
ANN, BOB, CAT, DAN = PLAYERS
ZHANG = User(201, "张三", language_code="zh-hans")  # a member who reads Chinese
STRANGER = User(301, "Eve", language_code="en")  # not in the group
THEME = {"bg_color": "#ffffff", "text_color": "#222222", "button_color": "#3390ec"}


@dataclass
class AppKit:
    api: FakeBotApi
    app: Any
    base: str  # http://127.0.0.1:<port>
    token: str = ""  # the group's app token (after `open_app`)
    routes: list[Any] = field(default_factory=list)  # the app's routes, as served

    async def say(self, user: User, text: str) -> list[OutboxEntry]:
        seq = self.api.last_seq
        update = self.api.send_text(GROUP, user, text, None)
        self.api.take_updates()
        await self.app.process_update(Update.de_json(update, self.app.bot))
        return self.api.outbox_since(seq)

    async def seat(self) -> None:
        await self.say(ANN, "/new mahjong")
        for user in PLAYERS:
            await self.say(user, "/join")

    async def open_app(self) -> str:
        """/app in the group: the link's token."""
        [entry] = await self.say(BOB, "/app")
        url = entry.buttons[0][0]["url"]
        assert url.startswith("https://t.me/jifen_bot/table?startapp=")
        self.token = parse_qs(urlsplit(url).query)["startapp"][0]
        return self.token

    def init_data(
        self, user: User, *, age: float = 0, key: str = TOKEN, start: str | None = None
    ) -> str:
        fields = {
            "auth_date": str(int(time.time() - age)),
            "start_param": self.token if start is None else start,
            "user": json.dumps(
                {"id": user.id, "first_name": user.first_name, "language_code": user.language_code},
                separators=(",", ":"),
                ensure_ascii=False,
            ),
        }
        return auth.sign(fields, key)

    def url(self, user: User, **launch: Any) -> str:
        """The page as Telegram opens it: launch data and theme in the hash."""
        fragment = urlencode(
            {
                "tgWebAppData": self.init_data(user, **launch),
                "tgWebAppVersion": "8.0",
                "tgWebAppPlatform": "android",
                "tgWebAppThemeParams": json.dumps(THEME),
            }
        )
        return f"{self.base}/app/#{fragment}"

    def headers(self, user: User, **launch: Any) -> dict[str, str]:
        return {
            "X-Telegram-Init-Data": self.init_data(user, **launch),
            "X-Jifen-Chat": self.token,
        }

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.base, timeout=30)


async def app_kit(engine: Engine, **more: Any) -> AsyncIterator[AppKit]:
    """The kit for a fixture: the group and its members, the bot, the app's server (`more`:
    the routes' other arguments, e.g. `streams`)."""
    api = FakeBotApi()
    api.add_chat(GROUP)
    for user in (*PLAYERS, ZHANG):
        api.set_member(GROUP.id, user, "member")
    api.set_member(GROUP.id, ANN, "creator")
    config = Settings.given(
        token=TOKEN,
        database_url=str(engine.url),
        rate_limit=False,
        flood=None,
        app_name="table",
    )
    app = build_application(
        config, engine=engine, request=EmulatorRequest(api), updates_request=EmulatorRequest(api)
    )
    await app.initialize()
    await app.post_init(app)
    routes = miniapp.routes(app, token=TOKEN, max_age=MAX_AGE, **more)
    try:
        async with miniapp.serving(routes, listen="127.0.0.1", port=0) as port:
            yield AppKit(api, app, f"http://127.0.0.1:{port}", routes=routes)
    finally:
        await app.shutdown()
        await app.post_shutdown(app)
