"""Beyond one group: /me (a member's record in every group, told only in the private chat),
/rating, and the cards — /summary's picture of the night, offered under /settle by a button,
and the season's picture after /reset."""

from __future__ import annotations

from telegram import (
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    InputFile,
    Message,
    Update,
    WebAppInfo,
)
from telegram.constants import ChatType
from telegram.ext import ContextTypes

from bot.chat.handlers import Command, perform, read, respond
from bot.chat.replying import answer, send
from bot.chat.run import renderer_for, renderer_of, run
from bot.commands.callback_data import card_data
from bot.i18n import N_
from bot.miniapp.link import me_page
from bot.miniapp.members import current_groups
from bot.presentation.chart_process import draw_card_apart
from bot.presentation.markup import split_text
from bot.presentation.render import Button, Out, Renderer
from bot.presentation.render_beyond import ME_OPEN, ME_PRIVATE
from service.errors import ServiceError
from service.replies import Card, Info, MeView, ResetDone, SettleView
from service.requests import Me, SeasonCard, Summary

DEEP_LINK = "me"  # t.me/<bot>?start=me: the private chat opens with /start me


async def on_me(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/me (and /start me): the record in the private chat; in a group a short line and a
    button that opens the private chat, never the record itself."""
    command = await read(update, context)
    if command is not None:
        await _me(update, context, command)


async def on_help(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/help, /rules; /start me (the private chat opened by /me's button) is /me."""
    command = await read(update, context)
    if command is not None and isinstance(command.request, Me):
        await _me(update, context, command)
    else:
        await respond(update, context, command)


async def _me(update: Update, context: ContextTypes.DEFAULT_TYPE, command: Command) -> None:
    chat = update.effective_chat
    if chat is None:
        return
    if chat.type != ChatType.PRIVATE:
        renderer = await renderer_for(context, update)
        url = f"https://t.me/{context.bot.username}?start={DEEP_LINK}"
        button = InlineKeyboardButton(renderer._(ME_OPEN), url=url)
        await command.message.reply_text(
            renderer._(ME_PRIVATE),
            reply_markup=InlineKeyboardMarkup([[button]]),
            do_quote=False,
        )
        return
    answered = await perform(update, context, command)
    if answered is None:
        return
    renderer = renderer_of(answered)
    reply = answered.reply
    if isinstance(reply, MeView) and update.effective_user is not None:  # its current groups
        reply = await current_groups(context.bot, update.effective_user.id, reply)
    out = renderer.render(reply)
    page = me_page(context)
    keyboard = None
    if page is not None:
        label = renderer._(N_("Open in the app"))
        keyboard = InlineKeyboardMarkup([[InlineKeyboardButton(label, web_app=WebAppInfo(page))]])
    parts = split_text(out.text)
    for i, part in enumerate(parts, 1):
        await command.message.reply_text(
            part,
            do_quote=False,
            reply_markup=keyboard if i == len(parts) else None,
        )


async def on_summary(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/summary: the night's card."""
    command = await read(update, context)
    answered = await perform(update, context, command) if command is not None else None
    if command is None or answered is None:
        return
    await send_card(command.message, renderer_of(answered), answered.reply)


async def send_card(message: Message, r: Renderer, reply: object) -> None:
    """A card as a photo with its caption; anything else (nothing recorded yet) as text."""
    if not isinstance(reply, Card):
        if isinstance(reply, Info):
            await send(message, r.render(reply))
        return
    png = await draw_card_apart(reply, r.lang)
    photo = InputFile(png, filename=reply.filename)
    caption = r.render(reply).text
    await message.reply_photo(photo, caption=caption, do_quote=False)


async def on_settle(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/settle, and under the season in play's squaring, a button for the night's card."""
    command = await read(update, context)
    answered = await perform(update, context, command) if command is not None else None
    if command is None or answered is None:
        return
    out = renderer_of(answered).render(answered.reply)
    await send(command.message, with_card_offer(renderer_of(answered), out, answered.reply))


def with_card_offer(r: Renderer, out: Out, reply: object) -> Out:
    """The rendered /settle with a "🖼 The night's card" button (its own row) when it shows the
    season in play."""
    if not isinstance(reply, SettleView) or not any(plan for _, plan in reply.sections):
        return out
    offer = (Button(r._(N_("🖼 The night's card")), card_data()),)
    return Out(out.text, (*out.buttons, offer))


async def on_card_button(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """The card button under /settle: the night's card, posted in the chat."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    try:
        answered = await run(update, context, Summary(), "[card]")
    except ServiceError as err:
        await answer(query, renderer.alert(err.msgid, err.params))
        return
    await answer(query)
    await send_card(query.message, renderer_of(answered), answered.reply)


async def on_reset(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/reset (admins): as /set and /link are answered; once archived, the season's card."""
    command = await read(update, context)
    answered = await perform(update, context, command) if command is not None else None
    if command is None or answered is None:
        return
    renderer = renderer_of(answered)
    if not await reset_with_card(update, context, command.message, renderer, answered.reply):
        await send(command.message, renderer.render(answered.reply))


async def reset_with_card(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    renderer: Renderer,
    reply: object,
) -> bool:
    """A /reset that archived a season (typed or confirmed by its button) is answered by the
    season's card, the reply its caption (one message); False: not that, or nothing to draw."""
    if not isinstance(reply, ResetDone):
        return False
    try:
        card = (await run(update, context, SeasonCard(reply.archived), "[card]")).reply
    except ServiceError:
        return False
    if not isinstance(card, Card):
        return False
    png = await draw_card_apart(card, renderer.lang)
    caption = renderer.render(reply).text + "\n" + renderer.render(card).text
    photo = InputFile(png, filename=card.filename)
    await message.reply_photo(photo, caption=caption, do_quote=False)
    return True
