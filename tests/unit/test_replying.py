"""A reply goes out through `bot.delivery.messages.send`: in the message's chat and forum topic (not
a reply thread that is no topic), in business chats and channels' direct messages, as HTML that
does not quote the command; a long text in parts cut at line ends, the buttons on the last."""

from __future__ import annotations

import json
from typing import Any

import pytest
from telegram import Message
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot
from telegram.request import BaseRequest, RequestData

from bot.app import DEFAULTS
from bot.delivery.messages import post, send
from bot.presentation.markup import MAX_MESSAGE, markup
from bot.presentation.out import Button, Out

BOT_USER = {"id": 42, "is_bot": True, "first_name": "jifen", "username": "jifen_bot"}


class Recorder(BaseRequest):
    """Records each request's method and body; answers like Telegram (or with an error)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes | None]] = []
        self.refuse = False

    @property
    def read_timeout(self) -> float | None:
        return None

    async def initialize(self) -> None:
        return None

    async def shutdown(self) -> None:
        return None

    async def do_request(
        self, url: str, method: str, request_data: RequestData | None = None, *_: Any, **__: Any
    ) -> tuple[int, bytes]:
        endpoint = url.rsplit("/", 1)[-1]
        if endpoint == "getMe":
            return 200, json.dumps({"ok": True, "result": BOT_USER}).encode()
        self.sent.append((endpoint, request_data.json_payload if request_data else None))
        if self.refuse:
            answer = {"ok": False, "error_code": 400, "description": "Bad Request: chat not found"}
            return 400, json.dumps(answer).encode()
        params = request_data.parameters if request_data else {}
        message = {"message_id": 9, "date": 0, "chat": {"id": params["chat_id"], "type": "group"}}
        return 200, json.dumps({"ok": True, "result": message}).encode()


def message(bot: ExtBot[None], **fields: Any) -> Message:
    data = {
        "message_id": 5,
        "date": 1_700_000_000,
        "chat": {"id": -100123, "type": "supergroup", "title": "牌友"},
        "from": {"id": 7, "is_bot": False, "first_name": "老王"},
        "text": "/hu 1 zimo",
        **fields,
    }
    found = Message.de_json(data, bot)
    assert found is not None
    return found


SHAPES = {
    "group": {},
    "forum topic": {"message_thread_id": 77, "is_topic_message": True},
    "reply thread, not a topic": {"message_thread_id": 3},
    "business chat": {"business_connection_id": "bc-1"},
    "channel direct messages": {"direct_messages_topic": {"topic_id": 12}},
}


@pytest.mark.parametrize("shape", SHAPES)
async def test_send_replies_in_the_chat_and_topic(shape: str) -> None:
    recorder = Recorder()
    async with ExtBot("1:TOKEN", request=recorder, defaults=DEFAULTS) as bot:
        given = message(bot, **SHAPES[shape])
        for out in (Out("<b>老王</b> +3 &amp; 1&lt;2"), Out("x", ((Button("撤销", "u:1"),),))):
            await given.reply_text(
                out.text, parse_mode=ParseMode.HTML, do_quote=False, reply_markup=markup(out)
            )
            await send(given, out)
    by_reply_text, by_send = recorder.sent[0::2], recorder.sent[1::2]
    assert by_send == by_reply_text
    assert all(endpoint == "sendMessage" for endpoint, _ in recorder.sent)
    plain, buttons = (json.loads(body or b"{}") for _, body in by_send)
    assert plain["text"] == "<b>老王</b> +3 &amp; 1&lt;2" and plain["parse_mode"] == "HTML"
    assert "reply_parameters" not in plain and "reply_markup" not in plain
    assert json.loads(buttons["reply_markup"]) == {
        "inline_keyboard": [[{"callback_data": "u:1", "text": "撤销"}]]
    }
    assert ("message_thread_id" in plain) == (shape == "forum topic")


async def test_a_long_reply_goes_in_parts_with_the_buttons_on_the_last() -> None:
    recorder = Recorder()
    line = "老王 " + "+3 " * 300
    text = "\n".join([line] * 12)
    async with ExtBot("1:TOKEN", request=recorder, defaults=DEFAULTS) as bot:
        await send(message(bot), Out(text, ((Button("撤销", "u:1"),),)))
    bodies = [json.loads(body or b"{}") for _, body in recorder.sent]
    assert len(bodies) > 1
    assert "\n".join(b["text"] for b in bodies) == text
    assert all(len(b["text"]) <= MAX_MESSAGE for b in bodies)
    assert ["reply_markup" in b for b in bodies] == [False] * (len(bodies) - 1) + [True]


async def test_send_raises_telegram_errors() -> None:
    recorder = Recorder()
    async with ExtBot("1:TOKEN", request=recorder, defaults=DEFAULTS) as bot:
        recorder.refuse = True
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await send(message(bot), Out("hi"))


async def test_a_post_where_no_message_is_answered_goes_the_same_way() -> None:
    """The Mini App's records: in the chat and topic, HTML, long texts in parts, buttons last."""
    recorder = Recorder()
    line = "老王 " + "+3 " * 300
    text = "\n".join([line] * 12)
    async with ExtBot("1:TOKEN", request=recorder, defaults=DEFAULTS) as bot:
        await post(bot, -100123, 77, Out(text, ((Button("撤销", "u:1"),),)))
        await post(bot, -100123, 0, Out("<b>老王</b> +3"))
    bodies = [json.loads(body or b"{}") for _, body in recorder.sent]
    *parts, plain = bodies
    assert len(parts) > 1 and "\n".join(b["text"] for b in parts) == text
    assert all(b["message_thread_id"] == "77" and b["parse_mode"] == "HTML" for b in parts)
    assert ["reply_markup" in b for b in parts] == [False] * (len(parts) - 1) + [True]
    assert plain["text"] == "<b>老王</b> +3" and "message_thread_id" not in plain
