"""The Bot API of 2026 where python-telegram-bot 22.8 does not speak it yet: each call is the
documented method through `Bot.do_api_request` (or PTB's own method where it has one), its
JSON built here and nowhere else, so tests check one place against core.telegram.org/bots/api.
"""

from __future__ import annotations

# ---------------------------------------------------------------- issue 40, points 3-5 (p40b):
# the command menus per role and language, Rich Message tables, guest mode's answers.
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from telegram import (
    Bot,
    BotCommand,
    BotCommandScope,
    InlineKeyboardMarkup,
    InlineQueryResultArticle,
    InputTextMessageContent,
    Message,
    SentGuestMessage,
)
from telegram.constants import ParseMode

log = logging.getLogger(__name__)

JSON = dict[str, Any]
#: A menu: its scope, its language (None: every language without a list of its own) → lines.
Menus = Mapping[tuple[BotCommandScope, str | None], Sequence[BotCommand]]


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


def _lines(commands: Sequence[BotCommand]) -> list[tuple[str, str]]:
    return [(c.command, c.description) for c in commands]


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
