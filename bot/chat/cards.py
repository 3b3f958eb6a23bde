"""The cards as photos: /summary's picture of the night (also offered under /settle by a
button), and the season's picture once /reset archived it, under the reset's reply."""

from __future__ import annotations

from telegram import InputFile, Message, Update
from telegram.ext import ContextTypes

from bot.chat.service_call import run
from bot.presentation.chart_process import draw_card_apart
from bot.presentation.render import Renderer
from service.errors import ServiceError
from service.replies import Card, ResetDone
from service.requests import SeasonCard


async def send_card(message: Message, r: Renderer, card: Card) -> None:
    """A card as a photo, drawn in a process of its own, with its caption."""
    png = await draw_card_apart(card, r.lang)
    photo = InputFile(png, filename=card.filename)
    await message.reply_photo(photo, caption=r.render(card).text, do_quote=False)


async def with_season_card(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    renderer: Renderer,
    done: ResetDone,
) -> bool:
    """A /reset that archived a season (typed or confirmed by its button) is answered by the
    season's card, the reply its caption (one message); False: nothing to draw."""
    try:
        card = (await run(update, context, SeasonCard(done.archived), "[card]")).reply
    except ServiceError:
        return False
    if not isinstance(card, Card):
        return False
    png = await draw_card_apart(card, renderer.lang)
    caption = renderer.render(done).text + "\n" + renderer.render(card).text
    photo = InputFile(png, filename=card.filename)
    await message.reply_photo(photo, caption=caption, do_quote=False)
    return True
