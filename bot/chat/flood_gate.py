"""The flood guard in front of every handler (group -1): per sender and chat, at most `limit`
commands and button presses in `window` seconds (`bot.chat.flood`)."""

from __future__ import annotations

from telegram import Update
from telegram.ext import ApplicationHandlerStop, ContextTypes

from bot.chat.flood import FloodGuard, Verdict
from bot.chat.origin import sender_key, typed_here
from bot.chat.replying import answer
from bot.chat.service_call import renderer_for
from bot.commands.parsing import command_text
from bot.delivery.messages import send
from bot.i18n import N_
from bot.presentation.out import Out

FLOOD_WARNING = N_(
    "Slow down, please: at most {limit} commands in {window} seconds each. "
    "I will answer you again in a moment."
)


async def flood_gate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Per sender (user, or channel posted as) and chat: the first command over the limit gets
    one polite warning, the rest are dropped before any database work (a guest mention over
    the limit is dropped without one)."""
    guard: FloodGuard | None = context.bot_data.get("flood")
    key, chat, query = sender_key(update), update.effective_chat, update.callback_query
    if guard is None or key is None or chat is None:
        return
    message, guest = update.message, update.guest_message is not None  # guest: every mention
    if (
        query is None
        and not guest
        and (
            message is None
            or not typed_here(message)
            or not is_command(message.text, context.bot.username)
        )
    ):
        return
    verdict = guard.check(key, chat.id)
    if verdict is Verdict.ALLOW:
        return
    if verdict is Verdict.WARN and not guest:  # a guest is answered only by its query: dropped
        renderer = await renderer_for(context, update)
        params = {"limit": guard.limit, "window": f"{guard.window:g}"}
        if query is not None:
            await answer(query, renderer.alert(FLOOD_WARNING, params))
        elif message is not None:
            await send(message, Out(renderer._(FLOOD_WARNING, **params)))
    elif query is not None:
        await answer(query)  # no spinner on the user's button
    raise ApplicationHandlerStop


def is_command(text: str | None, bot_username: str) -> bool:
    """Text starting with /, or a command for this bot that Telegram did not mark as one."""
    return text is not None and (
        text.startswith("/") or command_text(text, bot_username) is not None
    )
