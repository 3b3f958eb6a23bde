"""The command handlers, one per family of commands (`bot.chat.routes` sends each command to
its family's by its name): a command is parsed, run by the service, and its answer rendered;
a refusal is answered with the reason and the command's usage."""

from __future__ import annotations

import asyncio
import html
import logging
from dataclasses import dataclass, replace

from telegram import Message, Update
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.chat import files, score_buttons, wizard
from bot.chat.origin import typed_command
from bot.chat.replying import send
from bot.chat.run import renderer_for, renderer_of, run, service, thread_of
from bot.chat.undo_reply import undo_of_reply
from bot.commands.parsing import NotForThisBot, ParseError, parse_typed
from bot.i18n import N_
from bot.miniapp.link import open_app
from service.core import Answer
from service.errors import ServiceError
from service.replies import ChartData, ExportData
from service.requests import Request, Undo

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Command:
    """A command read: the message, its text (as recorded with the change), the request."""

    message: Message
    text: str
    request: Request


async def read(update: Update, context: ContextTypes.DEFAULT_TYPE) -> Command | None:
    """The typed command parsed, or None: for another bot, or refused (and answered)."""
    typed, message = typed_command(update), update.message
    if typed is None or message is None:
        return None
    try:
        request = parse_typed(typed, context.bot.username)
    except NotForThisBot:
        return None
    except ParseError as err:
        await refuse(update, context, message, err)
        return None
    return Command(message, typed.text, request)


async def refuse(
    update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message, err: ParseError
) -> None:
    """Why the command is not one, with its usage. An unknown command is answered too (with
    the commands /help lists): a command that gets no answer looks like a bot that is down;
    one addressed to another bot (`/cmd@other_bot`) never reaches here."""
    renderer = await renderer_for(context, update)
    await send(message, renderer.error(err.msgid, err.params, err.usage))


async def perform(
    update: Update, context: ContextTypes.DEFAULT_TYPE, command: Command
) -> Answer | None:
    """The service's answer, or None after the refusal was answered."""
    try:
        return await run(update, context, command.request, command.text)
    except ServiceError as err:
        renderer = await renderer_for(context, update)
        await send(command.message, renderer.error(err.msgid, err.params, err.usage))
        return None


async def respond(
    update: Update, context: ContextTypes.DEFAULT_TYPE, command: Command | None
) -> None:
    """Run the command and reply with its rendered answer."""
    if command is None:
        return
    answered = await perform(update, context, command)
    if answered is not None:
        await send(command.message, renderer_of(answered).render(answered.reply))


def bare(update: Update, context: ContextTypes.DEFAULT_TYPE, name: str) -> bool:
    """The command `name` typed alone: its buttons instead."""
    typed = typed_command(update)
    return typed is not None and typed.name == name and typed.alone(context.bot.username)


async def on_tables(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/new, /join, /seats, /dealer, /players, /iam, /sub, /leave, /rename: the open table,
    its seats and the people in them."""
    await respond(update, context, await read(update, context))


async def on_mahjong(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/hu, /gang, /liuju; /hu alone asks for the hand by buttons (the wizard)."""
    if bare(update, context, "hu"):
        await wizard.start(update, context)
        return
    await respond(update, context, await read(update, context))


async def on_510k(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/r: a 510K hand."""
    await respond(update, context, await read(update, context))


async def on_free(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/s (a free round), /pay (a transfer); /s alone enters the round by buttons."""
    if bare(update, context, "s"):
        await score_buttons.begin(update, context)
        return
    await respond(update, context, await read(update, context))


async def on_undo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/undo: the table's last record or hand #n; as a reply to one of our messages, the
    record whose Undo button that message shows."""
    command = await read(update, context)
    if command is None or not isinstance(command.request, Undo):
        return
    try:
        request = undo_of_reply(command.request, command.message, context.bot.id)
    except ParseError as err:
        await refuse(update, context, command.message, err)
        return
    await respond(update, context, replace(command, request=request))


async def on_views(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/standings, /history, /settle, /stats, /seasons: what everyone may look at."""
    await respond(update, context, await read(update, context))


async def on_files(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/chart (a picture) and /export (CSV files)."""
    command = await read(update, context)
    answered = await perform(update, context, command) if command is not None else None
    if command is None or answered is None:
        return
    renderer, reply = renderer_of(answered), answered.reply
    if isinstance(reply, ChartData | ExportData):
        await files.send_file(command.message, renderer, reply)
    else:
        await send(command.message, renderer.render(reply))


async def on_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/set, /reset, /link, /unlink, /merge: the service refuses them to members who are not
    admins."""
    await respond(update, context, await read(update, context))


async def on_app(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/app: the button that opens the Mini App for this chat and topic."""
    command, chat = await read(update, context), update.effective_chat
    if command is None or chat is None:
        return
    renderer = await renderer_for(context, update)
    out, keyboard = await open_app(
        context, renderer, chat.id, chat.type, thread_of(command.message)
    )
    await command.message.reply_text(out.text, reply_markup=keyboard, do_quote=False)


async def on_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help (and /start), /rules."""
    await respond(update, context, await read(update, context))


async def on_unknown(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A command jifen does not know: said so where it is meant for us."""
    await respond(update, context, await read(update, context))


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
