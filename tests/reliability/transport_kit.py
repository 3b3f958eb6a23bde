"""The real Application over the fake Bot API with the webhook server of `bot.delivery.webhook`
in this process: updates POSTed as Telegram sends them, replies sent before the answer."""

from __future__ import annotations

import itertools
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx
import tornado.web
from sqlalchemy.engine import Engine
from telegram.request import BaseRequest
from tornado.httpserver import HTTPServer

from bot.app import build_application
from bot.delivery.inbound import MAX_BODY
from bot.delivery.webhook import SECRET_HEADER, routes
from bot.settings import Settings
from tests.botprocess import free_port
from tests.emulator.api import Chat, FakeBotApi, OutboxEntry, User
from tests.emulator.request import EmulatorRequest

SECRET = "transport-Secret_1"
_update_ids = itertools.count(1, 1_000_000)
PLAYERS = [User(301 + i, name, language_code="en") for i, name in enumerate("ABCD")]
ZH = User(399, "老王", language_code="zh-hans")


def new_group(api: FakeBotApi, chat_id: int) -> Chat:
    chat = api.add_chat(Chat(chat_id, "supergroup", title=f"table {chat_id}"))
    for user in (*PLAYERS, ZH):
        api.set_member(chat.id, user, "member")
    return chat


@dataclass
class Hook:
    api: FakeBotApi
    app: Any
    engine: Engine
    url: str
    client: httpx.AsyncClient

    async def post(
        self, body: bytes | Any, *, secret: str | None = SECRET, **headers: str
    ) -> httpx.Response:
        """POST `body` (bytes as they are, anything else as JSON) as Telegram does."""
        content = body if isinstance(body, bytes) else json.dumps(body).encode()
        sent = {"Content-Type": "application/json", **headers}
        if secret is not None:
            sent[SECRET_HEADER] = secret
        return await self.client.post(self.url, content=content, headers=sent)

    async def say(self, chat: Chat, user: User, text: str) -> httpx.Response:
        update = self.api.send_text(chat, user, text)
        self.api.take_updates()
        return await self.post(update)

    async def replies(self, chat: Chat, since: int = 0) -> list[OutboxEntry]:
        """What the bot sent to `chat` (an update's replies go out before its answer)."""
        return self.api.outbox_since(since, chat.id)


@asynccontextmanager
async def webhook_bot(
    engine: Engine,
    *,
    api: FakeBotApi | None = None,
    request: BaseRequest | None = None,
) -> AsyncIterator[Hook]:
    """The bot with its webhook on a loopback port (over `api`, else a new fake Telegram; its
    calls through `request`, else straight to the fake)."""
    api = api or FakeBotApi(first_update_id=next(_update_ids))  # ids unique across a database
    config = Settings.given(
        token="123:TEST", database_url=str(engine.url), rate_limit=False, flood=None
    )
    app = build_application(
        config,
        engine=engine,
        request=request or EmulatorRequest(api),
        updates_request=EmulatorRequest(api),
    )
    await app.initialize()
    port = free_port()
    web = tornado.web.Application(routes(app, "hook", SECRET))
    server = HTTPServer(web, max_body_size=MAX_BODY)
    server.listen(port, address="127.0.0.1")
    try:
        async with httpx.AsyncClient(timeout=30) as client:
            yield Hook(api, app, engine, f"http://127.0.0.1:{port}/hook", client)
    finally:
        server.stop()
        await app.shutdown()
