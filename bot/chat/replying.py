"""Answering in the chat: a rendered message (split when longer than Telegram allows, the
buttons on its last part), a button press's answer, a keyboard taken away."""

from __future__ import annotations

import logging
from typing import Any

from telegram import CallbackQuery, Message
from telegram.constants import ParseMode
from telegram.error import BadRequest

from bot.presentation.markup import split_text
from bot.presentation.render import Out

log = logging.getLogger(__name__)


def keyboard(out: Out) -> dict[str, Any] | None:
    """`markup(out)` as `api_kwargs`: the Bot API's JSON, with the keys in the order PTB sends
    them (the request is byte-identical), built without PTB's objects."""
    if not out.buttons:
        return None
    rows = [[{"callback_data": b.data, "text": b.label} for b in row] for row in out.buttons]
    return {"reply_markup": {"inline_keyboard": rows}}


async def send(message: Message, out: Out) -> None:
    """Reply in the message's chat (and topic); a long text goes in several messages, split
    between lines, with the buttons on the last one (given as `api_kwargs`: see `keyboard`)."""
    parts = split_text(out.text)
    for part in parts[:-1]:
        await post_html(message, part)
    await post_html(message, parts[-1], keyboard(out))


async def post_html(message: Message, text: str, extra: dict[str, Any] | None = None) -> None:
    """sendMessage with HTML `text` in `message`'s chat and forum topic: the request that
    `message.reply_text(text, parse_mode=HTML, do_quote=False, api_kwargs=extra)` sends (tested
    byte for byte), but Telegram's answer is not made into a `Message`. Errors are raised as
    `reply_text` raises them."""
    data: dict[str, Any] = {
        "chat_id": message.chat_id,
        "text": text,
        "business_connection_id": message.business_connection_id,
        "direct_messages_topic_id": (
            message.direct_messages_topic.topic_id if message.direct_messages_topic else None
        ),
        "message_thread_id": message.message_thread_id if message.is_topic_message else None,
        "parse_mode": ParseMode.HTML,
    }
    await message.get_bot()._post("sendMessage", data, api_kwargs=extra)


async def answer(query: CallbackQuery, alert: str | None = None) -> None:
    """Answer a button press; one already answered or too old is not an error."""
    try:
        await query.answer(alert, show_alert=alert is not None)
    except BadRequest:
        log.info("callback query %s could not be answered (answered or too old)", query.id)


async def drop_buttons(query: CallbackQuery) -> None:
    """Remove a message's buttons once they did their job (already gone is fine)."""
    try:
        await query.edit_message_reply_markup(None)
    except BadRequest as err:
        if "not modified" not in str(err).lower():
            raise
