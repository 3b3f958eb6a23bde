"""Webhook and polling behave the same for the handlers: one scripted evening (commands, the
buttons of a hand, the /hu wizard, the /s buttons, refusals, /chart, /export, /help in parts)
through the handlers in polling mode and in webhook mode (the replies sent before the webhook
answers) makes the same Bot API calls, with the same parameters, in the same order."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from telegram import Update
from telegram.request import RequestData

from bot.app import build_application
from bot.delivery.passing_on import PassingOn
from bot.delivery.polling import process_batch
from bot.settings import Settings
from service.context import Ctx
from service.core import Answer, Service
from service.requests import Request, Seasons
from tests.conftest import migrated
from tests.emulator.api import Chat, FakeBotApi
from tests.emulator.request import EmulatorRequest
from tests.reliability.transport_kit import PLAYERS, ZH, new_group, webhook_bot

A, B, C, D = PLAYERS
JSON = dict[str, Any]
#: What differs between two runs by nature: which query a press answers.
UNCOMPARED = frozenset({"callback_query_id"})


class Recorder(PassingOn):
    """The calls that reach the fake Telegram, in order: method, parameters as sent (their JSON
    texts) and files (name, MIME type)."""

    def __init__(self, inner: EmulatorRequest) -> None:
        super().__init__(inner)
        self.calls: list[tuple[str, JSON]] = []

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        *args: Any,
        **kwargs: Any,
    ) -> tuple[int, bytes]:
        api_method = url.rsplit("/", 1)[-1]
        if api_method != "getMe" and request_data is not None:
            params: JSON = {
                k: v for k, v in request_data.json_parameters.items() if k not in UNCOMPARED
            }
            for name, (filename, _, mimetype) in request_data.multipart_data.items():
                params[name] = (filename, mimetype)
            self.calls.append((api_method, params))
        return await super().do_request(url, method, request_data, *args, **kwargs)


Deliver = Callable[[JSON], Awaitable[None]]


async def evening(api: FakeBotApi, chat: Chat, deliver: Deliver) -> None:
    """The script: every update is delivered, and its replies sent, before the next."""

    async def say(user: Any, text: str, **kwargs: Any) -> None:
        await deliver(api.send_text(chat, user, text, **kwargs))

    async def press(user: Any, pick: Callable[[JSON], bool]) -> tuple[int, str]:
        """Press the first button `pick` takes on the latest message that has one."""
        for message in reversed(api.bot_messages(chat.id)):
            rows = (message.get("reply_markup") or {}).get("inline_keyboard") or []
            for button in (b for row in rows for b in row):
                if pick(button):
                    pressed = message["message_id"], str(button["callback_data"])
                    await again(user, pressed)
                    return pressed
        raise AssertionError(f"no such button in chat {chat.id}")

    async def again(user: Any, pressed: tuple[int, str]) -> None:
        """The same button pressed (again: a double tap, its buttons gone meanwhile)."""
        await deliver(api.press_button(chat, user, *pressed))

    def label(text: str) -> Callable[[JSON], bool]:
        return lambda button: str(button["text"]).startswith(text)

    def data(ending: str) -> Callable[[JSON], bool]:
        return lambda button: str(button["callback_data"]).endswith(ending)

    def first(button: JSON) -> bool:
        return str(button["callback_data"]).startswith("v1:w:")

    await say(A, "/new mahjong")
    for user in PLAYERS:
        await say(user, "/join")
    await say(A, "/hu 1 zimo qys")
    await say(B, "/hu 2 pao 3")
    await again(C, await press(C, label("Undo")))  # the hand's button, tapped twice
    await say(A, "/gang 1 an")
    await say(A, "/hu")  # the wizard: winner, how, pattern, flags, record
    for _ in range(4):
        await press(A, first)
    await press(A, data(".ok"))
    await again(A, await press(A, data(".go")))  # a double tap
    hands = [m for m in api.bot_messages(chat.id) if "Undo" in json.dumps(m)]
    await say(D, "/undo", reply_to=hands[-1]["message_id"])  # by reply: that hand
    await say(B, "/hu 9 zimo")  # refused by the parser
    await say(B, "/hu 2 pao 2")  # refused by the rules
    await say(B, "/set stake 2")  # refused: not an admin
    await say(B, "/hux@jifen_bot")  # unknown, addressed to us
    await say(B, "/hux")  # unknown, maybe another bot's: no answer
    await say(B, "/seasons")  # fails inside (see the test): the apology
    await say(ZH, "/standings")
    await say(A, "/settle")
    await say(A, "/players")
    await say(A, "/chart")
    await say(A, "/export")
    await say(A, "/help")
    await say(A, "/new free 斗地主")  # over the open table: confirm by button
    await press(A, data(":斗地主"))
    await say(A, "/seats A B C")
    await say(A, "/s")  # by buttons: A +10, B the rest, record
    await press(A, label("A "))
    await press(A, label("+10"))
    await press(A, label("B "))
    await press(A, label("= rest"))
    await again(B, await press(A, label("Record")))  # another member's tap: recorded once
    await say(A, "/s A+5 B-5")
    await say(C, "/pay A C 2")


async def polled(engine: Engine) -> list[tuple[str, JSON]]:
    api = FakeBotApi(first_update_id=1)
    recorder = Recorder(EmulatorRequest(api))
    config = Settings.given(
        token="123:TEST", database_url=str(engine.url), rate_limit=False, flood=None
    )
    app = build_application(
        config, engine=engine, request=recorder, updates_request=EmulatorRequest(api)
    )
    chat = new_group(api, -4001)
    api.set_member(chat.id, A, "creator")

    async def deliver(update: JSON) -> None:
        api.take_updates()
        assert await process_batch(app, [Update.de_json(update, app.bot)]) == []

    async with app:
        await evening(api, chat, deliver)
    return recorder.calls


async def hooked(engine: Engine) -> list[tuple[str, JSON]]:
    api = FakeBotApi(first_update_id=1)
    recorder = Recorder(EmulatorRequest(api))
    async with webhook_bot(engine, api=api, request=recorder) as hook:
        chat = new_group(api, -4001)
        api.set_member(chat.id, A, "creator")

        async def deliver(update: JSON) -> None:
            api.take_updates()
            assert (await hook.post(update)).status_code == 200

        await evening(api, chat, deliver)
    return recorder.calls


async def test_webhook_and_polling_make_the_same_calls(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    perform = Service.perform

    async def failing(self: Service, ctx: Ctx, request: Request) -> Answer:
        if isinstance(request, Seasons):
            raise RuntimeError("a bug")
        return await perform(self, ctx, request)

    monkeypatch.setattr(Service, "perform", failing)
    with (
        migrated(f"sqlite:///{tmp_path}/polled.sqlite3") as one,
        migrated(f"sqlite:///{tmp_path}/hooked.sqlite3") as other,
    ):
        by_polling = await polled(one)
        by_webhook = await hooked(other)
    methods = [method for method, _ in by_polling]
    for method in ("sendPhoto", "sendDocument", "editMessageText", "editMessageReplyMarkup"):
        assert method in methods, method
    assert "answerCallbackQuery" in methods and "getChatMember" in methods
    assert any("Sorry" in str(params.get("text")) for _, params in by_polling)
    assert len(methods) > 60
    assert [m for m, _ in by_webhook] == methods
    for n, (polling_call, webhook_call) in enumerate(zip(by_polling, by_webhook, strict=True)):
        assert webhook_call == polling_call, f"call {n}"
