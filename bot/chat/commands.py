"""The one handler of every command (`bot.commands.catalog`): a new message a member typed is
read once (`check_update`), then answered: typed alone, a command with buttons asks by them;
else it is parsed, run by the service and its reply sent as its type wants
(`bot.chat.sending`). A refusal is answered with the reason and the command's usage; a
command for another bot is left alone."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from telegram import Message, Update
from telegram.ext import BaseHandler, ContextTypes, filters

from bot.chat import score_buttons, wizard
from bot.chat.origin import typed_here
from bot.chat.sending import send_reply
from bot.chat.service_call import renderer_for, renderer_of, run, thread_of
from bot.chat.undo_reply import CORRECTED, UNDONE, edit_of_reply, spend, undo_of_reply
from bot.commands.parsing import NotForThisBot, ParseError, Typed, parse_typed, read
from bot.delivery.messages import send
from bot.miniapp.link import open_app
from service.edit import CORRECTED_SINCE
from service.errors import ServiceError
from service.replies import Edited, Undone
from service.requests import Edit, Hu, OpenApp, Request, Score, Undo

Context = ContextTypes.DEFAULT_TYPE
#: What a command with buttons (`Command.buttons`) starts when typed alone, by its request.
BUTTONS: Mapping[type[Request], Callable[[Update, Context], Awaitable[None]]] = {
    Hu: wizard.start,  # /hu: winner → how → … → the hand
    Score: score_buttons.begin,  # /s: a free round by taps
}


class TableHandler(BaseHandler[Update, Context, None]):
    """The command table's handler: new messages only (an edit is not recorded again)."""

    def __init__(self) -> None:
        super().__init__(self.unused)

    @staticmethod
    async def unused(update: Update, context: Context) -> None:
        """PTB's callback; `handle_update` answers with the command read instead."""

    def check_update(self, update: object) -> Typed | None:
        """The command a member typed here: one Telegram marked at the start (any word, for
        any bot) or one for this bot it did not mark (`/胡 …`, `@thisbot /hu …`). None for
        edits, forwards, relays, plain text."""
        if not isinstance(update, Update):
            return None
        message = update.message
        if message is None or not message.text or not typed_here(message):
            return None
        marked = filters.COMMAND.filter(message)
        return read(message.text, message.get_bot().username, marked=marked)

    async def handle_update(
        self, update: Update, application: Any, check_result: object, context: Context
    ) -> None:
        assert isinstance(check_result, Typed) and update.message is not None
        await answer(update, context, update.message, check_result)


async def answer(update: Update, context: Context, message: Message, typed: Typed) -> None:
    """Answer the command `typed` in `message`."""
    command, username = typed.command, context.bot.username
    if command is not None and command.buttons and typed.alone(username):
        await BUTTONS[command.makes[0]](update, context)
        return
    try:
        parsed = parse_typed(typed, username)
        request = in_reply(parsed, message, context.bot.id)
    except NotForThisBot:
        return
    except ParseError as err:
        await refuse(update, context, message, err)
        return
    if isinstance(request, OpenApp):  # the app's link: answered by the bot, not the service
        await send_app_link(update, context, message)
        return
    replied = message.reply_to_message if request is not parsed else None
    try:
        answered = await run(update, context, request, typed.text)
    except ServiceError as err:
        await refuse(update, context, message, err)
        if replied is not None and err.msgid == CORRECTED_SINCE:  # its Undo: stale
            renderer = await renderer_for(context, update)
            await spend(context.bot, replied, renderer.alert(CORRECTED))
        return
    await send_reply(update, context, message, renderer_of(answered), answered.reply)
    if replied is not None and isinstance(answered.reply, Undone | Edited):
        label = UNDONE if isinstance(answered.reply, Undone) else CORRECTED
        await spend(context.bot, replied, renderer_of(answered).alert(label))  # its Undo: spent
    if answered.notice is not None:  # a table nobody closed closed: the night's card offered
        await send_reply(update, context, message, renderer_of(answered), answered.notice)


async def refuse(
    update: Update, context: Context, message: Message, err: ParseError | ServiceError
) -> None:
    """Why the command is not one, or was refused, with its usage. An unknown command is
    answered too (with the commands /help lists): a command that gets no answer looks like a
    bot that is down; one addressed to another bot (`/cmd@other_bot`) never reaches here."""
    renderer = await renderer_for(context, update)
    await send(message, renderer.error(err.msgid, err.params, err.usage))


def in_reply(request: Request, message: Message, bot_id: int) -> Request:
    """A bare /undo, or an /edit without a number, replying to one of our messages: the record
    that message's Undo names."""
    if isinstance(request, Edit):
        return edit_of_reply(request, message, bot_id)
    return undo_of_reply(request, message, bot_id) if isinstance(request, Undo) else request


async def send_app_link(update: Update, context: Context, message: Message) -> None:
    """/app: the button that opens the Mini App for this chat and topic."""
    chat = message.chat
    renderer = await renderer_for(context, update)
    await send(message, await open_app(context, renderer, chat.id, chat.type, thread_of(message)))
