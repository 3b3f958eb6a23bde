"""Guest mode (Bot API 10.0): `@jifen_bot …` in a chat that never added the bot arrives as
`Update.guest_message`, and is answered with `answerGuestQuery` (the answer posted in that
chat). A free round (`@jifen_bot 老王+30 小李-30 阿张`, or `/s …`) and `/pay` are recorded in
the chat's ledger (`service.guest`) and answered with the round and the totals; the mention
alone, and the views (/standings, /settle, /history…), answer what they show; a mahjong or
510K command is refused with how to add the bot. A redelivered guest update records nothing
twice (the update id is claimed with the record, as every update's)."""

from __future__ import annotations

import logging
import re
from typing import Any

from telegram import Message, Update
from telegram.error import TelegramError
from telegram.ext import BaseHandler, ContextTypes

from bot.chat.service_call import renderer_for, renderer_of, run
from bot.commands.parsing import NotForThisBot, ParseError, parse_typed, read
from bot.delivery.bot_api import answer_guest
from bot.i18n import N_
from bot.presentation.markup import split_text
from service.errors import ServiceError
from service.guest import NEEDS_THE_BOT
from service.replies import RepeatAsk
from service.requests import (
    GuestRound,
    Help,
    History,
    Pay,
    Request,
    Rules,
    Score,
    Seasons,
    Settle,
    Standings,
    Stats,
)

Context = ContextTypes.DEFAULT_TYPE
log = logging.getLogger(__name__)
#: What a guest may look at: the reads of the ledger (anything else but a round or a
#: transfer needs the bot in the group).
VIEWS = (Standings, History, Settle, Stats, Seasons, Rules, Help)
TITLE = "jifen"
NO_BUTTONS = N_(
    "(As a guest I cannot show buttons: if it really was another round, send it again after two"
    " minutes and it is recorded.)"
)


class GuestHandler(BaseHandler[Update, Context, None]):
    """Guest messages with text (`Update.guest_message`)."""

    def __init__(self) -> None:
        super().__init__(self.unused)

    @staticmethod
    async def unused(update: Update, context: Context) -> None:
        """PTB's callback; `handle_update` answers instead."""

    def check_update(self, update: object) -> Message | None:
        if not isinstance(update, Update) or update.guest_message is None:
            return None
        message = update.guest_message
        return message if message.guest_query_id and message.text is not None else None

    async def handle_update(
        self, update: Update, application: Any, check_result: object, context: Context
    ) -> None:
        assert isinstance(check_result, Message)
        await answer(update, context, check_result)


def line_of(text: str, bot_username: str) -> str:
    """The text without the mention of this bot (wherever it stands) and its spaces."""
    name = re.escape(bot_username.removeprefix("@"))
    mention = re.compile(rf"@{name}(?![A-Za-z0-9_])", re.IGNORECASE)  # a username's letters
    return mention.sub(" ", text, count=1).strip()


def guest_request(text: str, bot_username: str) -> tuple[Request, str]:
    """The request of a guest line and its command as recorded: the mention alone is
    /standings, a line without a command a free round (`/s` before it); raises `ParseError`,
    or `ServiceError` (`NEEDS_THE_BOT`) for what only the bot in the group does."""
    line = line_of(text, bot_username)
    if not line:
        return Standings(), "/standings"
    command = line if line.startswith("/") else f"/s {line}"
    typed = read(command, bot_username, marked=True)
    assert typed is not None  # marked: every command word is read
    if typed.command is not None and not issubclass(typed.command.makes[0], (Score, Pay, *VIEWS)):
        raise ServiceError(NEEDS_THE_BOT)  # before its arguments: /hu, /r, /new…
    request = parse_typed(typed, bot_username)
    if isinstance(request, Score | Pay):
        return GuestRound(request), typed.text
    if isinstance(request, VIEWS):
        return request, typed.text
    raise ServiceError(NEEDS_THE_BOT)


async def answer(update: Update, context: Context, message: Message) -> None:
    """Record or read what the guest line asks, and post the answer in the chat."""
    username = context.bot.username
    try:
        request, text = guest_request(message.text or "", username)
        answered = await run(update, context, request, text)
    except NotForThisBot:
        return
    except (ParseError, ServiceError) as err:
        renderer = await renderer_for(context, update)
        await _post(context, message, renderer.error(err.msgid, err.params, err.usage).text)
        return
    # a round's or a transfer's reply ends with the table's totals (`现在总分：…`)
    renderer = renderer_of(answered)
    text = renderer.render(answered.reply).text
    if isinstance(answered.reply, RepeatAsk):  # its buttons cannot be shown to a guest
        text += "\n" + renderer._(NO_BUTTONS)
    await _post(context, message, text)


async def _post(context: Context, message: Message, html: str) -> None:
    """The answer posted by `answerGuestQuery` (its first message's worth); a query answered
    already (a redelivered update) is left as it is."""
    assert message.guest_query_id is not None
    try:
        await answer_guest(context.bot, message.guest_query_id, TITLE, split_text(html)[0])
    except TelegramError as err:
        log.warning("guest query %s not answered: %s", message.guest_query_id, err)
