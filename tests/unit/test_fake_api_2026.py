"""The emulator's Bot API of 2026 checks what Telegram checks: a Rich Message of exactly one
form with valid blocks (an older server: 404), a guest query answered once with an article,
the menu button's shape, and a guest_message update PTB reads."""

from __future__ import annotations

from typing import Any

import pytest
from telegram import Bot, MenuButtonWebApp, Update, WebAppInfo
from telegram.error import BadRequest, EndPointNotFound

from bot.delivery.bot_api import answer_guest, send_rich
from tests.emulator.api import Chat, FakeApiError, FakeBotApi, User
from tests.emulator.request import EmulatorRequest

GROUP = Chat(-100321, "supergroup", title="table")
OUTSIDE = Chat(-100322, "supergroup", title="no bot here")
ALICE = User(1001, "Alice", username="alice_w", language_code="en")
CELL = {"text": "x", "align": "left", "valign": "middle"}


@pytest.fixture
def api() -> FakeBotApi:
    fake = FakeBotApi()
    fake.add_chat(GROUP)
    fake.set_member(GROUP.id, ALICE, "member")
    return fake


def bot_of(api: FakeBotApi) -> Bot:
    return Bot("123:TEST", request=EmulatorRequest(api))


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({"blocks": [{"type": "paragraph", "text": "a"}], "html": "<p>a</p>"}, "exactly one"),
        ({"blocks": []}, "RICH_MESSAGE_EMPTY"),
        ({"blocks": [{"type": "section_heading", "text": "a"}]}, "unsupported rich block"),
        ({"blocks": [{"type": "heading", "text": "a"}]}, "HEADING_SIZE"),
        ({"blocks": [{"type": "table", "cells": [[{"text": "a"}]]}]}, "ALIGN"),
        ({"blocks": [{"type": "table", "cells": [[CELL]], "is_compact": "yes"}]}, "Boolean"),
    ],
)
async def test_a_rich_message_telegram_would_refuse(
    api: FakeBotApi, message: dict[str, Any], reason: str
) -> None:
    api.rich_messages = True
    async with bot_of(api) as bot:
        with pytest.raises(BadRequest, match=rf"(?i){reason}"):
            await bot.do_api_request(
                "sendRichMessage", api_kwargs={"chat_id": GROUP.id, "rich_message": message}
            )
    assert api.outbox == []


async def test_rich_messages_sent_and_an_older_server(api: FakeBotApi) -> None:
    table = {"type": "table", "cells": [[CELL, CELL | {"text": "+3"}]], "caption": "pts"}
    async with bot_of(api) as bot:
        with pytest.raises(EndPointNotFound):
            await send_rich(bot, GROUP.id, [table])
        api.rich_messages = True
        sent = await send_rich(bot, GROUP.id, [{"type": "heading", "text": "T", "size": 3}, table])
        assert sent.api_kwargs["rich_message"]["blocks"][1]["caption"] == "pts"
    [entry] = api.outbox
    assert (entry.media_kind, entry.plain_text) == ("rich", "T\nx | +3\npts")


async def test_a_guest_query_is_answered_once(api: FakeBotApi) -> None:
    update = api.guest_message(OUTSIDE, ALICE, "@jifen_bot Alice+3 Bob")
    async with bot_of(api) as bot:
        message = Update.de_json(update, bot).guest_message
        assert message is not None and message.guest_query_id
        assert message.chat.id == OUTSIDE.id and message.from_user.id == ALICE.id
        sent = await answer_guest(bot, message.guest_query_id, "jifen", "<b>round 1</b>")
        assert sent.inline_message_id
        with pytest.raises(BadRequest, match=r"(?i)query is too old"):
            await answer_guest(bot, message.guest_query_id, "jifen", "again")
        with pytest.raises(BadRequest, match=r"(?i)query_id_invalid"):
            await answer_guest(bot, "nope", "jifen", "x")
        with pytest.raises(Exception, match="not a member"):  # the bot may not write there
            await bot.send_message(OUTSIDE.id, "hello")
    [entry] = api.outbox
    assert (entry.chat_id, entry.plain_text, entry.media_kind) == (OUTSIDE.id, "round 1", "guest")


async def test_the_menu_button(api: FakeBotApi) -> None:
    async with bot_of(api) as bot:
        button = MenuButtonWebApp("Open", WebAppInfo("https://bot.example.com/app/"))
        assert await bot.set_chat_menu_button(menu_button=button)
        assert (await bot.get_chat_menu_button()) == button
    with pytest.raises(FakeApiError, match=r"(?i)menu button"):
        api.call("setChatMenuButton", {"menu_button": {"type": "web_app"}})
