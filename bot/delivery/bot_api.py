"""The Bot API of 2026 where python-telegram-bot 22.8 does not speak it yet: each field through
PTB's documented `api_kwargs`, each method through `Bot.do_api_request` (or PTB's own method
where it has one), its JSON built here and nowhere else, so the tests check one place against
core.telegram.org/bots/api.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    SentGuestMessage,
)
from telegram.constants import ParseMode
from telegram.error import BadRequest, Forbidden

log = logging.getLogger(__name__)

JSON = dict[str, Any]
#: A menu: its scope, its language (None: every language without a list of its own) → lines.
Menus = Mapping[tuple[BotCommandScope, str | None], Sequence[BotCommand]]

# ---------------------------------------------------------------------------------------------
# Private answers in the group and buttons that speak (issue 40, points 1 and 2)
# ---------------------------------------------------------------------------------------------


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
# The command menus per role and language, Rich Message tables, guest mode (points 3 to 5)
# ---------------------------------------------------------------------------------------------


async def sync_menus(bot: Bot, menus: Menus) -> int:
    """Each menu set where Telegram's differs (`getMyCommands` first): a restart, or a second
    worker starting beside the first, sends nothing that is already there. The number set."""
    changed = 0
    for (scope, lang), commands in menus.items():
        have = await bot.get_my_commands(scope=scope, language_code=lang)
        if _lines(have) == _lines(commands):
            continue
        await bot.set_my_commands(commands, scope=scope, language_code=lang)
        changed += 1
    return changed


def _lines(commands: Sequence[BotCommand]) -> list[tuple[str, str, bool]]:
    return [(c.command, c.description, bool(c.api_kwargs.get("is_ephemeral"))) for c in commands]


def rich_message(blocks: Sequence[JSON]) -> JSON:
    """An `InputRichMessage` of `blocks` (Bot API 10.1: exactly one of html, markdown, blocks)."""
    return {"blocks": list(blocks)}


def sendrich_params(
    chat_id: int,
    blocks: Sequence[JSON],
    *,
    thread_id: int | None = None,
    markup: InlineKeyboardMarkup | None = None,
) -> JSON:
    """The parameters of `sendRichMessage` (Bot API 10.1): the chat, its forum topic, the
    message and its inline keyboard."""
    params: JSON = {"chat_id": chat_id, "rich_message": rich_message(blocks)}
    if thread_id:
        params["message_thread_id"] = thread_id
    if markup is not None:
        params["reply_markup"] = markup.to_dict()
    return params


async def send_rich(
    bot: Bot,
    chat_id: int,
    blocks: Sequence[JSON],
    *,
    thread_id: int | None = None,
    markup: InlineKeyboardMarkup | None = None,
) -> Message:
    """`sendRichMessage`: raises what PTB raises for the answer (`EndPointNotFound` where the
    server does not know the method, `BadRequest` where it refuses the message)."""
    params = sendrich_params(chat_id, blocks, thread_id=thread_id, markup=markup)
    sent = await bot.do_api_request("sendRichMessage", api_kwargs=params, return_type=Message)
    assert isinstance(sent, Message)
    return sent


def guest_result(result_id: str, title: str, html: str) -> InlineQueryResultArticle:
    """The message posted in the chat as the guest's answer: an article of HTML text."""
    content = InputTextMessageContent(html, parse_mode=ParseMode.HTML)
    return InlineQueryResultArticle(result_id, title, content)


async def answer_guest(bot: Bot, guest_query_id: str, title: str, html: str) -> SentGuestMessage:
    """`answerGuestQuery` (Bot API 10.0, PTB 22.8): the answer posted where the bot was
    mentioned as a guest."""
    result = guest_result(guest_query_id[:64], title, html)
    return await bot.answer_guest_query(guest_query_id, result)
