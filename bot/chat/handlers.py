"""The chat's handlers besides commands and buttons: a group's move to a supergroup, and a
failure (logged, and told to the chat politely)."""

from __future__ import annotations

import asyncio
import html
import logging

from telegram import Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.chat.service_call import renderer_for, service
from bot.i18n import N_

log = logging.getLogger(__name__)


async def on_migrate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Group → supergroup: the chat's records move to the new id."""
    message, chat = update.effective_message, update.effective_chat
    if message is None or chat is None:
        return
    if message.migrate_to_chat_id:
        old, new = chat.id, message.migrate_to_chat_id
    elif message.migrate_from_chat_id:
        old, new = message.migrate_from_chat_id, chat.id
    else:
        return
    await asyncio.to_thread(service(context).move_chat, old, new)


async def on_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Log the failure and tell the chat politely, without internals; the bot keeps running."""
    log.error("update failed", exc_info=context.error)
    if not isinstance(update, Update) or update.effective_message is None:
        return
    try:
        renderer = await renderer_for(context, update)
        text = renderer._(
            N_("Sorry, something went wrong. Please try again; /history shows what was recorded.")
        )
        await update.effective_message.reply_text(html.escape(text), do_quote=False)
    except (TelegramError, OSError, RuntimeError):
        log.warning("could not report the failure to the chat", exc_info=True)
