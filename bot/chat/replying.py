"""Answering a button press in the chat: the press's answer (an alert, or none), and a keyboard
taken away (a message is sent by `bot.delivery.messages`)."""

from __future__ import annotations

import logging

from telegram import CallbackQuery
from telegram.error import BadRequest

log = logging.getLogger(__name__)


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
