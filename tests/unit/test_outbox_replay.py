"""The outbox sends a captured call as PTB would have sent it: each method the handlers' bot
captures, captured (with its files) and replayed through its typed Bot method, makes the same
request; rows stored by the code before (the same JSON) are sent the same way."""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest
from telegram import InlineKeyboardButton, InlineKeyboardMarkup, InputFile, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest
from telegram.ext import ExtBot
from telegram.request import BaseRequest, RequestData

from bot.delivery.capture import CAPTURED, CapturingRequest, capturing
from bot.delivery.outbox import REQUIRED, replay
from storage.gateway.outbox import payload
from storage.models import OutboxRow

BOT_USER = {"id": 42, "is_bot": True, "first_name": "jifen", "username": "jifen_bot"}
CHAT = -100123
KEYBOARD = InlineKeyboardMarkup([[InlineKeyboardButton("撤销", callback_data="v1:undo:7")]])


def stored(call_id: int, chat: int | None, method: str, params: dict[str, Any]) -> OutboxRow:
    """A call as the outbox table holds it."""
    return OutboxRow(
        id=call_id,
        update_id=1,
        seq=call_id,
        chat_id=chat,
        method=method,
        payload=json.dumps(params),
    )


class Recorder(BaseRequest):
    """Each request's method, parameters (JSON texts) and files; answers like Telegram."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, dict[str, Any], dict[str, Any]]] = []

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
        assert request_data is not None
        files = {
            name: (part[0], part[1] if isinstance(part[1], bytes) else part[1].read(), part[2])
            for name, part in request_data.multipart_data.items()
        }
        self.sent.append((endpoint, request_data.json_parameters, files))
        message = {"message_id": 9, "date": 0, "chat": {"id": CHAT, "type": "supergroup"}}
        result: Any = message if endpoint.startswith(("send", "edit")) else True
        return 200, json.dumps({"ok": True, "result": result}).encode()


async def every_call(bot: ExtBot[None]) -> None:
    """One call of each captured method, as the handlers make them."""
    html = {"parse_mode": ParseMode.HTML}
    await bot.send_message(
        CHAT, "<b>老王</b> +3", message_thread_id=77, reply_markup=KEYBOARD, **html
    )
    await bot.send_photo(CHAT, InputFile(b"\x89PNG...", filename="chart.png"), caption="c", **html)
    document = InputFile(b"a,b\n1,2\n", filename="jifen.csv")
    await bot.send_document(CHAT, document, caption="<i>x</i>", **html)
    await bot.edit_message_text("typed", chat_id=CHAT, message_id=5, **html)
    await bot.edit_message_reply_markup(chat_id=CHAT, message_id=5, reply_markup=None)
    await bot.edit_message_caption(chat_id=CHAT, message_id=6, caption="again")
    await bot.answer_callback_query("4000000000001", "no longer valid", show_alert=True)
    await bot.delete_message(CHAT, 5)


async def test_a_captured_call_is_replayed_as_it_would_have_been_sent() -> None:
    direct, captured, replayed = Recorder(), Recorder(), Recorder()
    async with (
        ExtBot("1:TOKEN", request=direct) as plain,
        ExtBot("1:TOKEN", request=CapturingRequest(captured)) as handlers,
        ExtBot("1:TOKEN", request=replayed) as sender,
    ):
        await every_call(plain)
        with capturing() as calls:
            await every_call(handlers)
        assert captured.sent == []  # nothing went out
        assert {c.method for c in calls} == CAPTURED == set(REQUIRED)
        for n, call in enumerate(calls):
            await replay(sender, stored(n, call.chat_id, call.method, call.payload))
    assert replayed.sent == direct.sent


async def test_a_captured_call_is_answered_as_telegram_answers_it() -> None:
    async with ExtBot("1:TOKEN", request=CapturingRequest(Recorder())) as bot:
        with capturing() as calls:
            sent = await bot.send_message(CHAT, "hi")
            edited = await bot.edit_message_text("typed", chat_id=CHAT, message_id=5)
            answered = await bot.answer_callback_query("4000000000001")
            deleted = await bot.delete_message(CHAT, 5)
    assert isinstance(sent, Message) and sent.chat.id == CHAT
    assert isinstance(edited, Message) and edited.message_id == 5 and edited.chat.id == CHAT
    assert answered is True and deleted is True
    assert [c.method for c in calls] == [
        "sendMessage", "editMessageText", "answerCallbackQuery", "deleteMessage"
    ]  # fmt: skip


async def test_a_row_stored_by_the_code_before_is_sent_the_same() -> None:
    """As the outbox table held them before (`params`: PTB's JSON texts; files inline)."""
    png = b"\x89PNG..."
    rows = [
        stored(
            1,
            CHAT,
            "sendMessage",
            {
                "params": {
                    "chat_id": str(CHAT),
                    "text": "<b>老王</b> +3",
                    "parse_mode": "HTML",
                    "reply_markup": json.dumps(KEYBOARD.to_dict()),
                },
                "files": {},
            },
        ),
        stored(
            2,
            CHAT,
            "sendPhoto",
            {
                "params": {"chat_id": str(CHAT), "caption": "c", "parse_mode": "HTML"},
                "files": {"photo": ["chart.png", base64.b64encode(png).decode(), "image/png"]},
            },
        ),
    ]
    recorder = Recorder()
    async with ExtBot("1:TOKEN", request=recorder) as bot:
        for row in rows:
            await replay(bot, row)
    (message, params, _), (photo, photo_params, files) = recorder.sent
    assert message == "sendMessage" and params == payload(rows[0])["params"]
    assert photo == "sendPhoto" and photo_params == payload(rows[1])["params"]
    assert files == {"photo": ("chart.png", png, "image/png")}


async def test_a_call_that_cannot_be_sent_is_refused_for_good() -> None:
    async with ExtBot("1:TOKEN", request=Recorder()) as bot:
        for row in (
            stored(1, CHAT, "banChatMember", {"params": {}, "files": {}}),
            stored(2, None, "sendMessage", {"params": {"text": "to nobody"}, "files": {}}),
        ):
            with pytest.raises(BadRequest):
                await replay(bot, row)
