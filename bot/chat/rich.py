"""A reply with a table (/standings, /settle money, /summary's night) sent as a Rich Message
where the API takes it, else as today's text. A server that refuses the method (an older Bot
API, a self-hosted one) or the message is not asked again by this process: the first refusal
is remembered in the application's `bot_data`."""

from __future__ import annotations

import logging

from telegram import Message
from telegram.error import BadRequest, EndPointNotFound
from telegram.ext import ContextTypes

from bot.chat.service_call import thread_of
from bot.delivery.bot_api import send_rich
from bot.delivery.messages import send
from bot.presentation.markup import markup
from bot.presentation.out import Out
from bot.presentation.render import Renderer
from bot.presentation.render_rich import SHEETS, blocks
from service.replies import Reply

log = logging.getLogger(__name__)
#: `bot_data` key: set once the API refused a Rich Message (the rest of the process: text).
REFUSED = "rich_refused"


def refused(context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Whether this process has been refused a Rich Message already."""
    return bool(context.bot_data.get(REFUSED))


async def send_table(
    context: ContextTypes.DEFAULT_TYPE, message: Message, r: Renderer, reply: Reply
) -> bool:
    """`reply` as a Rich Message table (its buttons under it) in the message's chat and
    topic; False: not sent (no table for it, or the API refused it: then remembered)."""
    make = SHEETS.get(type(reply))
    sheet = make(r._, reply) if make is not None else None
    if sheet is None or refused(context):
        return False
    out = r.render(reply)
    try:
        await send_rich(
            context.bot,
            message.chat_id,
            blocks(sheet),
            thread_id=thread_of(message) or None,
            markup=markup(Out("", out.buttons)),
        )
    except (EndPointNotFound, BadRequest) as err:
        context.bot_data[REFUSED] = True
        log.info("rich messages refused (%s): text from now on", err)
        return False
    return True


async def send_table_or_text(
    context: ContextTypes.DEFAULT_TYPE, message: Message, r: Renderer, reply: Reply
) -> None:
    """The table, else the text (the same content, `Renderer.render`)."""
    if not await send_table(context, message, r, reply):
        await send(message, r.render(reply))
