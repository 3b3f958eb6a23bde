"""Answering in the chat: a rendered message (split when longer than Telegram allows, the
buttons on its last part), a button press's answer, a keyboard taken away."""

from __future__ import annotations

import logging

from telegram import CallbackQuery, Message
from telegram.error import BadRequest

from bot.presentation.markup import markup, split_text
from bot.presentation.out import Out

log = logging.getLogger(__name__)


async def send(message: Message, out: Out) -> None:
    """Reply in the message's chat (and topic), HTML, not quoting it; a long text goes in
    several messages, split between lines, with the buttons on the last one."""
    parts = split_text(out.text)
    for i, part in enumerate(parts, 1):
        await message.reply_text(
            part,
            do_quote=False,
            reply_markup=markup(out) if i == len(parts) else None,
        )


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
