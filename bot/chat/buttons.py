"""A pressed inline button: its data decoded (`bot.commands.callback_data`), checked against
the message's keyboard (anything else was forged), then routed by its action to one handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from html import escape

from telegram import CallbackQuery, InlineKeyboardMarkup, Message, Update
from telegram.constants import ChatType, ParseMode
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from bot.chat import score_buttons, wizard
from bot.chat.replying import answer, drop_buttons
from bot.chat.sending import MINE_LINK, send_reply
from bot.chat.service_call import renderer_for, renderer_of, run
from bot.chat.undo_reply import CORRECTED, UNDONE, spend
from bot.commands.callback_data import (
    name_request,
    near_answer,
    new_request,
    parse_press,
    press_key,
)
from bot.delivery.bot_api import send_ephemeral
from bot.delivery.messages import send
from bot.i18n import N_
from bot.presentation.markup import markup, split_text
from bot.presentation.render import Renderer
from service.edit import CORRECTED_SINCE
from service.errors import ServiceError
from service.ledger import ALREADY_UNDONE
from service.replies import Info, MineView, Recorded
from service.requests import (
    Again,
    Answered,
    Claim,
    LastNight,
    Mine,
    Request,
    Reset,
    Summary,
    Undo,
)

#: A press's handler: the update, its context, the renderer, the press's argument.
Press = Callable[[Update, ContextTypes.DEFAULT_TYPE, Renderer, str], Awaitable[None]]
#: What becomes of a message's buttons once the press did its job.
Spent = Callable[[CallbackQuery], Awaitable[None]]


async def on_button(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A pressed inline button: decoded, checked, handled by the handler of its action."""
    query = update.callback_query
    if query is None:
        return
    renderer = await renderer_for(context, update)
    press = parse_press(query.data)
    message = query.message if isinstance(query.message, Message) else None
    # A claim button for whoever presses it goes once pressed, but a second member's tap may
    # come after that: the service answers it (a claim is open to anyone anyway: /iam).
    anyone = press is not None and press.action == "me" and press.arg.endswith(".0")
    if press is None or message is None or not (anyone or on_keyboard(message, query.data)):
        await answer(query, renderer.alert(N_("This button is no longer valid.")))
        return
    await ACTIONS[press.action](update, context, renderer, press.arg)


def on_keyboard(message: Message, data: str | None) -> bool:
    """Telegram only sends the data of a button the message shows; anything else was forged."""
    keyboard = message.reply_markup.inline_keyboard if message.reply_markup else ()
    return any(button.callback_data == data for row in keyboard for button in row)


async def cancel(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """Cancel: the buttons go; under a repeat's question ([No]) the question says what was
    not recorded, for everyone who reads it later."""
    query = update.callback_query
    assert query is not None
    await answer(query)
    message = query.message
    if arg == "r" and isinstance(message, Message) and message.text:
        said = renderer.alert(N_("❌ No: the command above was not recorded; nothing changed."))
        try:
            await query.edit_message_text(
                message.text_html + "\n" + escape(said), parse_mode=ParseMode.HTML
            )
        except BadRequest as err:  # pressed twice: the text says it already
            if "not modified" not in str(err).lower():
                raise
        return
    await drop_buttons(query)


async def undo(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """A record's Undo button (once per message, however often it is tapped). Used, or pressed
    under a record undone since (by /undo), it stays as a disabled button saying so."""

    async def spent(query: CallbackQuery) -> None:
        await disable_pressed(query, renderer.alert(UNDONE))

    async def corrected(query: CallbackQuery) -> None:
        await disable_pressed(query, renderer.alert(CORRECTED))

    request = Undo(event_id=int(arg), from_message=True)
    stale = {ALREADY_UNDONE: spent, CORRECTED_SINCE: corrected}
    await confirmed(update, context, renderer, request, "undo", once=True, spent=spent, stale=stale)


async def disable_pressed(query: CallbackQuery, label: str) -> None:
    """The pressed button becomes a disabled one saying `label`; the message's other buttons
    (Cancel beside an Undo) go with the question they answered."""
    assert isinstance(query.message, Message)
    await spend(query.get_bot(), query.message, label)


async def again(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """[Record again] under the two-minute rule's question: recorded once, however often and
    by however many it is pressed."""
    await confirmed(update, context, renderer, Again(event_id=int(arg)), "again", once=True)


async def near(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """[Replace #N] / [Record both] under a near repeat's question: recorded once, however
    often, by however many and whichever of the two is pressed."""
    answer = near_answer(arg)
    assert answer is not None  # parse_press checked it
    request = Answered(near_id=answer[0], replace=answer[1])
    await confirmed(update, context, renderer, request, "near", once=True)


async def new_table(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """/new's confirmation over an open table (once per message)."""
    request = new_request(arg)
    assert request is not None  # parse_press checked it
    await confirmed(update, context, renderer, request, "new", once=True)


async def reset(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """/reset's confirmation: the season is archived."""
    await confirmed(update, context, renderer, Reset(confirm=True, season_id=int(arg)), "reset")


async def confirmed(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    renderer: Renderer,
    request: Request,
    action: str,
    *,
    once: bool = False,
    spent: Spent = drop_buttons,
    stale: Mapping[str, Spent] | None = None,
) -> None:
    """Run what the button confirms (checked again by the service) and answer in the chat; a
    write pressed `once` (a double tap) records once. Done, the buttons are `spent` (they go);
    a refusal among `stale` (done another way) spends them as it says."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    message = query.message
    key = press_key(message.chat.id, message.message_id, query.data or "") if once else None
    try:
        reply = (await run(update, context, request, f"[{action}]", once_key=key)).reply
    except ServiceError as err:
        await answer(query, renderer.alert(err.msgid, err.params))
        if stale and err.msgid in stale:
            await stale[err.msgid](query)
        return
    if isinstance(reply, Recorded) and reply.repeated:  # pressed again: recorded already
        reply = Info(N_("Already recorded."))
    if isinstance(reply, Info):  # nothing new happened (a repeat, a stale button): just say so
        await answer(query, renderer.alert(reply.msgid, reply.params))
        await spent(query)
        return
    await answer(query)
    await spent(query)
    await send_reply(update, context, message, renderer, reply)


async def claim(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """ "I am <guest>": under /join, only the member who seated the guest may press it; under
    /seats (user 0), whoever is that guest. Once per member: a double tap records once, a
    second member is refused (the guest is someone's already)."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    player_id, user_id = (int(part) for part in arg.split("."))
    if user_id not in (0, query.from_user.id):
        await answer(query, renderer.alert(N_("This button is for the member who asked.")))
        return
    data = (query.data or "") + (f":{query.from_user.id}" if user_id == 0 else "")
    once = press_key(query.message.chat.id, query.message.message_id, data)
    try:
        reply = (await run(update, context, Claim(player_id), "[me]", once_key=once)).reply
    except ServiceError as err:
        await answer(query, renderer.alert(err.msgid, err.params))
        return
    if isinstance(reply, Info):  # a double tap
        await answer(query, renderer.alert(reply.msgid, reply.params))
        return
    await answer(query)
    await drop_button(query)
    await send(query.message, renderer.render(reply))


async def drop_button(query: CallbackQuery) -> None:
    """The pressed button goes; the message's other buttons stay (other guests to claim)."""
    assert isinstance(query.message, Message)
    keyboard = query.message.reply_markup.inline_keyboard if query.message.reply_markup else ()
    rows = [[b for b in row if b.callback_data != query.data] for row in keyboard]
    kept = [row for row in rows if row]
    if not kept:
        await drop_buttons(query)
        return
    try:
        await query.edit_message_reply_markup(InlineKeyboardMarkup(kept))
    except BadRequest as err:
        if "not modified" not in str(err).lower():
            raise


async def name_answer(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """An answer to "did you mean …?" (only the member who asked): the command runs again
    with the player meant, once however often it is tapped."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    decoded = name_request(arg)
    assert decoded is not None  # parse_press checked it
    user_id, request = decoded
    if user_id not in (0, query.from_user.id):
        await answer(query, renderer.alert(N_("This button is for the member who asked.")))
        return
    await confirmed(update, context, renderer, request, "name", once=True)


async def card(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """The card button under /settle: the night's card, posted in the chat."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    try:
        night: Request = LastNight(int(arg)) if arg else Summary()  # parse_press checked it
        answered = await run(update, context, night, "[card]")
    except ServiceError as err:
        await answer(query, renderer.alert(err.msgid, err.params))
        return
    await answer(query)
    await send_reply(update, context, query.message, renderer_of(answered), answered.reply)


async def my_account(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """[我的账] under /standings: the presser's account, shown to them alone under the message
    (an ephemeral answer to the press; the message stays). Refused by the API, the press opens
    the private chat with the bot (`/start mine`) instead: never a public answer."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    message = query.message
    try:
        answered = await run(update, context, Mine(), "[mine]")
    except ServiceError as err:
        await answer(query, renderer.alert(err.msgid, err.params))
        return
    if message.chat.type == ChatType.PRIVATE:  # the private chat: private already
        await answer(query)
        await send_reply(update, context, message, renderer_of(answered), answered.reply)
        return
    out = renderer_of(answered).render(answered.reply)
    thread = message.message_thread_id if message.is_topic_message else None
    if isinstance(answered.reply, MineView) and await send_ephemeral(
        context.bot,
        message.chat.id,
        query.from_user.id,
        split_text(out.text),
        markup(out),
        thread_id=thread,
        callback_query_id=query.id,
    ):
        await answer(query)
        return
    try:
        await query.answer(url=f"https://t.me/{context.bot.username}?start={MINE_LINK}")
    except BadRequest:
        await answer(query, renderer.alert(N_("Send me /mine in our private chat.")))


#: A press's action (`callback_data.Press.action`) → its handler.
ACTIONS: Mapping[str, Press] = {
    "undo": undo,
    "again": again,
    "near": near,
    "w": wizard.step,  # the /hu wizard
    "f": score_buttons.step,  # the /s buttons
    "new": new_table,
    "me": claim,
    "nm": name_answer,
    "reset": reset,
    "cancel": cancel,
    "card": card,  # the night's card, offered under /settle
    "mine": my_account,  # the presser's account, for them alone, under /standings
}
