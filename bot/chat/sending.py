"""A reply sent in the chat as its type wants: most as their rendered message (`send` of
`bot.delivery.messages`), /chart and /export as files, a card as a photo, an archived season
with its card, /me with the button that opens it in the app; /me and /mine in a group for the
sender alone (an ephemeral message), else with the button to the private chat; /standings,
/settle money and /summary's night as tables where the API takes them (`bot.chat.rich`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from telegram import Message, Update
from telegram.ext import ContextTypes

from bot.chat import cards, files
from bot.chat.rich import send_table, send_table_or_text
from bot.delivery.bot_api import send_ephemeral
from bot.delivery.messages import send
from bot.i18n import N_
from bot.miniapp.link import me_page
from bot.miniapp.members import current_groups
from bot.presentation.markup import markup, split_text
from bot.presentation.out import Button, Out
from bot.presentation.render import Renderer
from bot.presentation.render_beyond import ME_OPEN, ME_PRIVATE
from service.replies import (
    Card,
    ChartData,
    ExportData,
    MeElsewhere,
    MeView,
    MineView,
    MoneyView,
    Reply,
    ResetDone,
    StandingsView,
)

#: t.me/<bot>?start=me: the private chat with the bot opens with /start me (/me there).
DEEP_LINK = "me"
#: t.me/<bot>?start=mine: … with /start mine (/mine there).
MINE_LINK = "mine"

#: A type's sender: the update, its context, the message answered, the renderer, the reply.
Sender = Callable[[Update, ContextTypes.DEFAULT_TYPE, Message, Renderer, Any], Awaitable[None]]


async def send_reply(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    renderer: Renderer,
    reply: Reply,
) -> None:
    """Answer `message` (in its chat and topic) with `reply`, as its type is sent."""
    sender = SENDERS.get(type(reply))
    if sender is None:
        await send(message, renderer.render(reply))
    else:
        await sender(update, context, message, renderer, reply)


async def _file(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    r: Renderer,
    data: ChartData | ExportData,
) -> None:
    await files.send_file(message, r, data)


async def _card(
    update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message, r: Renderer, card: Card
) -> None:
    """/summary: the night as a table where the API takes it, then its picture to forward."""
    await send_table(context, message, r, card)
    await cards.send_card(message, r, card)


async def _table(
    update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message, r: Renderer, v: Reply
) -> None:
    """/standings, /settle money: a Rich Message table, else the text."""
    await send_table_or_text(context, message, r, v)


async def _archived(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    r: Renderer,
    done: ResetDone,
) -> None:
    if not await cards.with_season_card(update, context, message, r, done):
        await send(message, r.render(done))


async def _me(
    update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message, r: Renderer, v: MeView
) -> None:
    """The record of the groups the member is in now: in the private chat with the button
    that opens it in the app if set up; in a group for the member alone."""
    if update.effective_user is not None:  # asked of Telegram afresh: its current groups
        v = await current_groups(context.bot, update.effective_user.id, v)
    out, page = r.render(v), me_page(context)
    if v.in_group:
        await privately(update, context, message, r, out, DEEP_LINK)
        return
    if page is not None:
        out = Out(out.text, (*out.buttons, (Button(r._(N_("Open in the app")), web_app=page),)))
    await send(message, out)


async def _mine(
    update: Update, context: ContextTypes.DEFAULT_TYPE, message: Message, r: Renderer, v: MineView
) -> None:
    """/mine: in a group for the member alone, in the private chat as any reply."""
    if v.in_group:
        await privately(update, context, message, r, r.render(v), MINE_LINK)
    else:
        await send(message, r.render(v))


async def privately(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    r: Renderer,
    out: Out,
    link: str,
) -> None:
    """`out` in the group for its sender alone (an ephemeral message). Where the API refuses
    it (an older server or client, an error), today's short line and the button that opens
    the private chat (`?start=<link>`) instead: never the answer itself in public."""
    user = update.effective_user
    thread = message.message_thread_id if message.is_topic_message else None
    if user is not None and await send_ephemeral(
        context.bot, message.chat.id, user.id, split_text(out.text), markup(out), thread_id=thread
    ):
        return
    await send(message, to_private(context, r, link))


def to_private(context: ContextTypes.DEFAULT_TYPE, r: Renderer, link: str = DEEP_LINK) -> Out:
    """The short line and the button that opens the private chat with the bot at `link`."""
    url = f"https://t.me/{context.bot.username}?start={link}"
    label = MINE_OPEN if link == MINE_LINK else ME_OPEN
    return Out(r._(ME_PRIVATE), ((Button(r._(label), url=url),),))


MINE_OPEN = N_("Show my account")


async def _elsewhere(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    r: Renderer,
    v: MeElsewhere,
) -> None:
    """/me from someone the bot cannot answer alone (an anonymous admin): a short line and a
    button that opens the private chat, never the record."""
    await send(message, to_private(context, r))


SENDERS: Mapping[type, Sender] = {
    ChartData: _file,
    ExportData: _file,
    Card: _card,
    StandingsView: _table,
    MoneyView: _table,
    ResetDone: _archived,
    MeView: _me,
    MeElsewhere: _elsewhere,
    MineView: _mine,
}
