"""A reply goes out through `bot.chat.replying.post_html`, which skips building PTB's `Message` from
Telegram's answer: the request must be the very one `Message.reply_text` sends, in plain groups,
forum topics, reply threads that are not topics, business chats and with buttons."""

from __future__ import annotations

import json
from typing import Any

import pytest
from telegram import Message
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot
from telegram.request import BaseRequest, RequestData

from bot.chat.replying import keyboard, post_html
from bot.presentation.render import Button, Out

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
async def test_post_html_sends_what_reply_text_sends(shape: str) -> None:
    recorder = Recorder()
    async with ExtBot("1:TOKEN", request=recorder) as bot:
        given = message(bot, **SHAPES[shape])
        buttons = Out("<b>老王</b> +3 & 1<2", ((Button("撤销", "u:1"),),))
        for extra in (None, keyboard(buttons)):
            await given.reply_text(
                buttons.text, parse_mode=ParseMode.HTML, do_quote=False, api_kwargs=extra
            )
            await post_html(given, buttons.text, extra)
    by_reply_text, by_post = recorder.sent[0::2], recorder.sent[1::2]
    assert by_post == by_reply_text
    assert all(endpoint == "sendMessage" for endpoint, _ in recorder.sent)
    body = json.loads(by_post[0][1] or b"{}")
    assert body["text"] == buttons.text
    assert ("message_thread_id" in body) == (shape == "forum topic")


async def test_post_html_raises_telegram_errors() -> None:
    recorder = Recorder()
    async with ExtBot("1:TOKEN", request=recorder) as bot:
        recorder.refuse = True
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await post_html(message(bot), "hi")
