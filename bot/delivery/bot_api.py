"""The Bot API beyond python-telegram-bot 22.8: the fields and methods jifen uses that PTB does
not know yet, each passed through PTB's documented `api_kwargs` (or `Bot.do_api_request`), in
this one module. The tests check the JSON of each against core.telegram.org/bots/api.
"""

# ---------------------------------------------------------------------------------------------
# Private answers in the group and buttons that speak (issue 40, points 1 and 2)
# ---------------------------------------------------------------------------------------------

from __future__ import annotations

import logging
from typing import Any

from telegram import Bot, BotCommand, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import BadRequest, Forbidden

log = logging.getLogger(__name__)


def ephemeral_parameters(
    receiver_user_id: int, callback_query_id: str | None = None
) -> dict[str, Any]:
    """`EphemeralMessageParameters` (Bot API 10.2–10.3): the message is shown to
    `receiver_user_id` alone; answering a button press (`callback_query_id`) it comes under the
    pressed message, which stays (`replace_callback_query_message` false)."""
    params: dict[str, Any] = {"receiver_user_id": receiver_user_id}
    if callback_query_id is not None:
        params["callback_query_id"] = callback_query_id
        params["replace_callback_query_message"] = False
    return params


async def send_ephemeral(
    bot: Bot,
    chat_id: int,
    receiver_user_id: int,
    texts: list[str],
    buttons: InlineKeyboardMarkup | None,
    *,
    thread_id: int | None = None,
    callback_query_id: str | None = None,
) -> bool:
    """Send `texts` (the parts of one reply, the buttons on the last) in the group `chat_id` for
    `receiver_user_id` alone: `sendMessage` with `ephemeral_message_parameters`. False when the
    API refuses it (an older server, a receiver who cannot get it): nothing was shown then to
    anyone but, at most, the receiver, and the caller falls back to the private chat. Telegram
    out of reach or flood control (`NetworkError`, `RetryAfter`) is raised as for any reply."""
    first = ephemeral_parameters(receiver_user_id, callback_query_id)  # answers the press
    try:
        for i, text in enumerate(texts, 1):
            params = first if i == 1 else ephemeral_parameters(receiver_user_id)
            await bot.send_message(
                chat_id,
                text,
                message_thread_id=thread_id,
                reply_markup=buttons if i == len(texts) else None,
                api_kwargs={"ephemeral_message_parameters": params},
            )
    except (BadRequest, Forbidden) as err:  # refused; a network failure is retried as any reply
        log.info("ephemeral message refused in chat %s: %s", chat_id, err)
        return False
    return True


def disabled_button(label: str) -> InlineKeyboardButton:
    """A button that does nothing, shown greyed (`disabled`: a `DisabledButton`, Bot API 10.3)."""
    return InlineKeyboardButton(label, api_kwargs={"disabled": {}})


def menu_command(command: str, description: str, *, ephemeral: bool = False) -> BotCommand:
    """A line of the command menu; `ephemeral`: the command answers its sender alone
    (`BotCommand.is_ephemeral`)."""
    extra = {"is_ephemeral": True} if ephemeral else None
    return BotCommand(command, description, api_kwargs=extra)


# ---------------------------------------------------------------------------------------------
# (issue 40, points 3–5 go below)
# ---------------------------------------------------------------------------------------------
