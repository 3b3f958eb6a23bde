"""Telegram handlers: an update becomes a service call, the reply model becomes a message."""

from __future__ import annotations

import asyncio
import contextlib
import html
import logging
import tempfile
from pathlib import Path
from typing import Any

from telegram import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    Update,
)
from telegram.constants import ChatMemberStatus, ChatType, ParseMode
from telegram.error import BadRequest, TelegramError
from telegram.ext import ApplicationHandlerStop, ContextTypes

from bot.chat import score_buttons, wizard
from bot.chat.flood import FloodGuard, Verdict
from bot.chat.origin import channel_of, sender_key, typed_here
from bot.chat.undo_reply import undo_of_reply
from bot.commands import labels
from bot.commands.callback_data import new_request, parse_press, press_key
from bot.commands.parsing import NotForThisBot, ParseError, command_name, command_text, parse
from bot.i18n import N_, pick_language
from bot.miniapp.link import open_app
from bot.presentation.chart_process import draw_apart
from bot.presentation.export_csv import export_files
from bot.presentation.render import Out, Renderer
from bot.presentation.render_insight import chart_caption, chart_texts, export_caption
from scoring.games import Game, Unit
from service.context import Actor, Ctx
from service.core import Answer, Service
from service.errors import ServiceError
from service.names import clean, member_name
from service.replies import ChartData, ExportData, Info, Recorded, Reply, TableView
from service.requests import (
    Claim,
    Link,
    OpenApp,
    Request,
    Reset,
    SetOption,
    ShowPlayers,
    Undo,
    Unlink,
)

log = logging.getLogger(__name__)
ADMIN_ONLY = (Reset, SetOption, Link, Unlink)
MAX_MESSAGE = 4096  # Telegram's limit on a message's text
FLOOD_WARNING = N_(
    "Slow down, please: at most {limit} commands in {window} seconds each. "
    "I will answer you again in a moment."
)
UNKNOWN_COMMAND = "unknown command /{word}; /help lists the commands"  # a near miss is answered
ADMIN_STATUSES = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


def service(context: ContextTypes.DEFAULT_TYPE) -> Service:
    svc: Service = context.bot_data["service"]
    return svc


async def renderer_for(context: ContextTypes.DEFAULT_TYPE, update: Update) -> Renderer:
    chat, user = update.effective_chat, update.effective_user
    chat_lang = await asyncio.to_thread(service(context).chat_language, chat.id) if chat else None
    return Renderer(pick_language(chat_lang, user.language_code if user else None))


def actor_of(update: Update) -> Actor:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    channel = channel_of(message)
    if message is not None and message.sender_chat is not None and channel is not None:
        sender = message.sender_chat
        title = clean(sender.title or "") or sender.username or str(channel)
        return Actor(None, title, sender.username, channel_id=channel)
    if message is not None and chat is not None and message.sender_chat is not None:
        return Actor(None, clean(chat.title or "") or "admin")
    if user is None:
        return Actor(None, "?")
    name = member_name(user.first_name, user.username, user.id)
    return Actor(user.id, name, user.username, user.language_code)


def thread_of(message: Message | None) -> int:
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Creator, administrators and anonymous admins of a group; anyone in a private chat."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None:
        return False
    if chat.type == ChatType.PRIVATE:
        return True
    if (
        message is not None
        and message.sender_chat is not None
        and message.sender_chat.id == chat.id
    ):
        return True
    if user is None:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError:  # unknown to the server: not an admin we can confirm
        log.warning("could not check whether %s is an admin of %s", user.id, chat.id)
        return False
    return member.status in ADMIN_STATUSES


def needs_admin_check(request: Request) -> bool:
    """Admin-only requests, and an Undo button (another table's hand needs an admin)."""
    return isinstance(request, ADMIN_ONLY) or (
        isinstance(request, Undo) and request.event_id is not None
    )


def markup(out: Out) -> InlineKeyboardMarkup | None:
    if not out.buttons:
        return None
    return InlineKeyboardMarkup(
        [[InlineKeyboardButton(b.label, callback_data=b.data) for b in row] for row in out.buttons]
    )


def keyboard(out: Out) -> dict[str, Any] | None:
    """`markup(out)` as `api_kwargs`: the Bot API's JSON, with the keys in the order PTB sends
    them (the request is byte-identical), built without PTB's objects: building and serialising
    those took ~30 µs of a reply, this ~3 µs (every recorded hand's reply has its Undo button)."""
    if not out.buttons:
        return None
    rows = [[{"callback_data": b.data, "text": b.label} for b in row] for row in out.buttons]
    return {"reply_markup": {"inline_keyboard": rows}}


async def send(message: Message, out: Out) -> None:
    """Reply in the message's chat (and topic); a long text goes in several messages, split
    between lines, with the buttons on the last one (given as `api_kwargs`: see `keyboard`)."""
    parts = split_text(out.text)
    for part in parts[:-1]:
        await post_html(message, part)
    await post_html(message, parts[-1], keyboard(out))


async def post_html(message: Message, text: str, extra: dict[str, Any] | None = None) -> None:
    """sendMessage with HTML `text` in `message`'s chat and forum topic: the request that
    `message.reply_text(text, parse_mode=HTML, do_quote=False, api_kwargs=extra)` sends (tested
    byte for byte), but Telegram's answer is not made into a `Message`. Nothing here reads it,
    and building one (a frozen object of ~100 attributes, with its chat and sender) was a sixth
    of the CPU of a recorded hand's update. Errors are raised as `reply_text` raises them."""
    data: dict[str, Any] = {
        "chat_id": message.chat_id,
        "text": text,
        "business_connection_id": message.business_connection_id,
        "direct_messages_topic_id": (
            message.direct_messages_topic.topic_id if message.direct_messages_topic else None
        ),
        "message_thread_id": message.message_thread_id if message.is_topic_message else None,
        "parse_mode": ParseMode.HTML,
    }
    await message.get_bot()._post("sendMessage", data, api_kwargs=extra)


def split_text(text: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Pieces of at most `limit` characters, cut at line ends (each line is whole HTML and far
    shorter than the limit: names and echoed commands are length-limited)."""
    parts: list[str] = []
    current = ""
    for line in text.split("\n"):
        if current and len(current) + 1 + len(line) > limit:
            parts.append(current)
            current = line
        else:
            current = f"{current}\n{line}" if current else line
    return [*parts, current]


async def run(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    request: Request,
    text: str,
    *,
    once_key: int | None = None,
) -> Answer:
    """Check permissions and run the request (one transaction, or a savepoint of a group
    commit). `once_key` replaces the update id as the key of exactly-once recording (a button
    press: see `press_key`)."""
    chat = update.effective_chat
    assert chat is not None
    ctx = Ctx(
        chat_id=chat.id,
        actor=actor_of(update),
        thread_id=thread_of(update.effective_message),
        is_admin=await is_admin(update, context) if needs_admin_check(request) else False,
        update_id=update.update_id if once_key is None else once_key,
        text=text,
    )
    return await service(context).perform(ctx, request)


async def flood_gate(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Per sender (user, or channel posted as) and chat: at most `limit` commands and button
    presses in `window` seconds; the first one over gets one polite warning, the rest are
    dropped before any database work."""
    guard: FloodGuard | None = context.bot_data.get("flood")
    key, chat, query = sender_key(update), update.effective_chat, update.callback_query
    if guard is None or key is None or chat is None:
        return
    message = update.message
    if query is None and (
        message is None
        or not typed_here(message)
        or not is_command(message.text, context.bot.username)
    ):
        return
    verdict = guard.check(key, chat.id)
    if verdict is Verdict.ALLOW:
        return
    if verdict is Verdict.WARN:
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


async def on_command(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Every command (`@thisbot /command …` too): parse, run, answer."""
    message, user = update.effective_message, update.effective_user
    if message is None or not message.text or not typed_here(message):
        return  # forwards, automatic forwards and via-bot messages repeat someone else's text
    text = command_text(message.text, context.bot.username) or message.text
    if is_bare_hu(text, context.bot.username):
        await start_wizard(update, context, await renderer_for(context, update))
        return
    if is_bare(text, context.bot.username, "s"):
        await start_round(update, context, await renderer_for(context, update))
        return
    try:
        request = parse(text, context.bot.username)
        if isinstance(request, Undo):
            request = undo_of_reply(request, message, context.bot.id)
    except NotForThisBot:
        return
    except ParseError as err:
        if err.msgid != UNKNOWN_COMMAND or addressed_to_us(update, context):
            renderer = await renderer_for(context, update)
            await send(message, renderer.error(err.msgid, err.params, err.usage))
        return
    if isinstance(request, OpenApp) and update.effective_chat is not None:
        chat = update.effective_chat
        renderer = await renderer_for(context, update)
        out, keyboard = await open_app(context, renderer, chat.id, chat.type, thread_of(message))
        await message.reply_text(
            out.text, parse_mode=ParseMode.HTML, reply_markup=keyboard, do_quote=False
        )
        return
    try:
        answered = await run(update, context, request, text)
    except ServiceError as err:
        renderer = await renderer_for(context, update)
        await send(message, renderer.error(err.msgid, err.params, err.usage))
        return
    # The language comes with the answer: no second transaction on the hot path.
    renderer = Renderer(pick_language(answered.lang, user.language_code if user else None))
    reply = answered.reply
    if isinstance(reply, ChartData | ExportData):
        await send_file(message, renderer, reply)
        return
    await send(message, renderer.render(reply))


async def send_file(message: Message, r: Renderer, data: ChartData | ExportData) -> None:
    """/chart as a photo, /export as a CSV document (the console writes them to files)."""
    if isinstance(data, ExportData):
        await send_export(message, r, data)
        return
    if not data.series:
        await send(message, Out(chart_caption(r._, data)))
        return
    png = await draw_apart(data, *chart_texts(r._, data))
    photo = InputFile(png, filename=data.filename)
    await message.reply_photo(photo, caption=chart_caption(r._, data), parse_mode=ParseMode.HTML)


async def send_export(message: Message, r: Renderer, data: ExportData) -> None:
    """/export: the rows stream into files in a worker thread (`bot.presentation.export_csv`),
    then go up one by one, the caption on the first."""
    with tempfile.TemporaryDirectory(prefix="jifen-export-") as tmp:
        files = await asyncio.to_thread(export_files, data, r.lang, Path(tmp))
        for n, path in enumerate(files):
            document = InputFile(await asyncio.to_thread(path.read_bytes), filename=path.name)
            caption = export_caption(r._, data) if n == 0 else None
            await message.reply_document(document, caption=caption, parse_mode=ParseMode.HTML)


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A pressed inline button: decoded, checked again by the service, answered."""
    query = update.callback_query
    if query is None:
        return
    renderer = await renderer_for(context, update)
    press = parse_press(query.data)
    message = query.message if isinstance(query.message, Message) else None
    if press is None or message is None or not on_keyboard(message, query.data):
        await answer(query, renderer.alert(N_("This button is no longer valid.")))
        return
    if press.action == "cancel":
        await answer(query)
        await drop_buttons(query)
        return
    if press.action == "w":
        await wizard_step(update, context, renderer, press.arg)
        return
    if press.action == "f":
        await round_step(update, context, renderer, press.arg)
        return
    if press.action == "me":
        await claim_step(update, context, renderer, press.arg)
        return
    request: Request | None = (
        Undo(event_id=int(press.arg))
        if press.action == "undo"
        else new_request(press.arg)
        if press.action == "new"
        else Reset(confirm=True, season_id=int(press.arg))
    )
    assert request is not None  # parse_press checked it
    # a confirmed /new or a (confirmed) undo writes: a double tap records once
    once = (
        press_key(message.chat.id, message.message_id, query.data or "")
        if press.action in ("new", "undo")
        else None
    )
    try:
        reply = (await run(update, context, request, f"[{press.action}]", once_key=once)).reply
    except ServiceError as err:
        await answer(query, renderer.alert(err.msgid, err.params))
        return
    if isinstance(reply, Info):  # nothing new happened (a repeat, a stale button): just say so
        await answer(query, renderer.alert(reply.msgid, reply.params))
        await drop_buttons(query)
        return
    await answer(query)
    await drop_buttons(query)
    await send(message, renderer.render(reply))


async def claim_step(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """ "I am <guest>": only the member who seated the guest may press it, once."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    player_id, user_id = (int(part) for part in arg.split("."))
    if query.from_user.id != user_id:
        await answer(query, renderer.alert(N_("This button is for the member who asked.")))
        return
    once = press_key(query.message.chat.id, query.message.message_id, query.data or "")
    try:
        reply = (await run(update, context, Claim(player_id), "[me]", once_key=once)).reply
    except ServiceError as err:
        await answer(query, renderer.alert(err.msgid, err.params))
        return
    if isinstance(reply, Info):  # a double tap
        await answer(query, renderer.alert(reply.msgid, reply.params))
        return
    await answer(query)
    await drop_buttons(query)
    await send(query.message, renderer.render(reply))


def on_keyboard(message: Message, data: str | None) -> bool:
    """Telegram only sends the data of a button the message shows; anything else was forged."""
    keyboard = message.reply_markup.inline_keyboard if message.reply_markup else ()
    return any(button.callback_data == data for row in keyboard for button in row)


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


def addressed_to_us(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Unknown commands are answered in private chats or when they name this bot; in groups
    they may belong to another bot."""
    chat, message = update.effective_chat, update.effective_message
    mention = f"@{context.bot.username}".lower()
    return (chat is not None and chat.type == ChatType.PRIVATE) or (
        message is not None and mention in (message.text or "").lower()
    )


def is_bare_hu(text: str, bot_username: str) -> bool:
    """`/hu` or `/胡` alone (or `/hu@thisbot`): the button wizard."""
    words = text.split()
    bot = words[0].partition("@")[2].lower() if len(words) == 1 else None
    return bot in ("", bot_username.lower()) and command_name(words[0]) == "hu"


async def seats_for_wizard(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer
) -> wizard.Table | None:
    """The seated names of a full mahjong table here and the hand's kongs, or None after telling
    why not."""
    try:
        view: Reply | None = (await run(update, context, ShowPlayers(), "/players")).reply
    except ServiceError:  # no table here
        view = None
    message = update.effective_message
    if isinstance(view, TableView) and view.game == Game.MAHJONG and None not in view.seats:
        return wizard.Table(tuple(name for name in view.seats if name is not None), view.kongs)
    if message is not None:
        await send(
            message, renderer.error(N_("The /hu buttons need a full mahjong table here."), {})
        )
    return None


async def start_wizard(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer
) -> None:
    """Bare /hu: ask step by step with buttons."""
    seats = await seats_for_wizard(update, context, renderer)
    if seats is not None and update.effective_message is not None:
        await send(update.effective_message, wizard.screen(wizard.Wizard(), seats, renderer))


async def wizard_step(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """Next wizard question, or — at the end — record the hand exactly as the typed command."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    state = wizard.decode(arg)
    seats = await seats_for_wizard(update, context, renderer) if state else None
    if state is None or seats is None or (state.winner or 1) > len(seats.names):
        await answer(query, renderer.alert(N_("This button is no longer valid.")))
        return
    if state.stage != "go":
        await answer(query)
        out = wizard.screen(state, seats, renderer)
        with contextlib.suppress(BadRequest):  # a double tap: the same screen again
            await query.edit_message_text(
                out.text, parse_mode=ParseMode.HTML, reply_markup=markup(out)
            )
        return
    command = state.command()
    once = press_key(query.message.chat.id, query.message.message_id, query.data or "")
    try:
        reply = (await run(update, context, parse(command), command, once_key=once)).reply
    except (ParseError, ServiceError) as err:
        await answer(query)
        await send(query.message, renderer.error(err.msgid, err.params, err.usage))
        return
    if (isinstance(reply, Recorded) and reply.repeated) or isinstance(reply, Info):
        await answer(query, renderer.alert(N_("Already recorded.")))  # a double tap
        return
    await answer(query)
    code = f"<code>{html.escape(command)}</code>"
    typed = renderer._("Typed, this is: {command}", command=code)
    await query.edit_message_text(typed, parse_mode=ParseMode.HTML)
    await send(query.message, renderer.render(reply))


def is_bare(text: str, bot_username: str, name: str) -> bool:
    """The command `name` alone (or `/name@thisbot`): its buttons."""
    words = text.split()
    bot = words[0].partition("@")[2].lower() if len(words) == 1 else None
    return bot in ("", bot_username.lower()) and command_name(words[0]) == name


async def free_seats(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer
) -> TableView | None:
    """The free table here with at least two seated, or None after telling why not."""
    try:
        view: Reply | None = (await run(update, context, ShowPlayers(), "/players")).reply
    except ServiceError:  # no table here
        view = None
    if isinstance(view, TableView) and view.game == Game.FREE and None not in view.seats:
        return view
    if update.effective_message is not None:
        await send(
            update.effective_message,
            renderer.error(N_("The /s buttons need a free table with players here."), {}),
        )
    return None


def round_title(view: TableView, renderer: Renderer) -> str:
    return view.name or renderer._(labels.UNIT[Unit.FREE])


async def start_round(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer
) -> None:
    """Bare /s: a round by buttons."""
    view = await free_seats(update, context, renderer)
    if view is not None and update.effective_message is not None:
        names = [n for n in view.seats if n is not None]
        out = score_buttons.screen(
            score_buttons.start(len(names)), names, round_title(view, renderer), renderer
        )
        await send(update.effective_message, out)


async def round_step(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """The next screen of a round by buttons, or — on Record — the round recorded."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    view = await free_seats(update, context, renderer)
    names = [n for n in view.seats if n is not None] if view is not None else []
    state = score_buttons.decode(arg, len(names)) if view is not None else None
    if view is None or state is None:
        await answer(query, renderer.alert(N_("This button is no longer valid.")))
        return
    await answer(query)
    if not state.go:
        out = score_buttons.screen(state, names, round_title(view, renderer), renderer)
        with contextlib.suppress(BadRequest):  # a double tap: the same screen again
            await query.edit_message_text(
                out.text, parse_mode=ParseMode.HTML, reply_markup=markup(out)
            )
        return
    command = state.command(names)
    once = press_key(query.message.chat.id, query.message.message_id, score_buttons.RECORD)
    try:
        reply = (await run(update, context, state.request(), command, once_key=once)).reply
    except ServiceError as err:
        await send(query.message, renderer.error(err.msgid, err.params, err.usage))
        return
    code = f"<code>{html.escape(command)}</code>"
    typed = renderer._("Typed, this is: {command}", command=code)
    with contextlib.suppress(BadRequest):  # a second tap: edited already
        await query.edit_message_text(typed, parse_mode=ParseMode.HTML)
    await send(query.message, renderer.render(reply))


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
