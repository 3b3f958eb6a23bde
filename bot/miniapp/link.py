"""`/app`: a button that opens the Mini App for this chat (and forum topic), and the bot's menu
button. Telegram allows `web_app` buttons in private chats only: a group gets the app's direct
link, `https://t.me/<bot>/<app>?startapp=<the chat's token>`."""

from __future__ import annotations

import asyncio
import logging
from urllib.parse import urljoin

from telegram import MenuButtonWebApp, WebAppInfo
from telegram.constants import ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.i18n import N_, translator
from bot.presentation.out import Button, Out
from bot.presentation.render import Renderer
from bot.ptb_types import AnyApplication
from bot.settings import Settings
from service.app import Place
from service.core import Service

log = logging.getLogger(__name__)


def link(bot_username: str, app_name: str, token: str) -> str:
    return f"https://t.me/{bot_username}/{app_name}?startapp={token}"


async def open_app(
    context: ContextTypes.DEFAULT_TYPE,
    renderer: Renderer,
    chat_id: int,
    chat_type: str,
    thread: int,
) -> Out:
    """The answer to /app: the button, or why there is none."""
    config: Settings = context.bot_data["settings"]
    if not config.app_name:
        return Out(renderer._(N_("The Mini App is not set up for this bot.")))
    service: Service = context.bot_data["service"]
    token = await asyncio.to_thread(service.app.token, Place(chat_id, thread))
    label = renderer._(N_("Open the table"))
    page = config.app_page
    if chat_type == ChatType.PRIVATE and page:
        button = Button(label, web_app=f"{page}?startapp={token}")
    else:
        button = Button(label, url=link(context.bot.username, config.app_name, token))
    text = renderer._(N_("Standings, chart, history and recording by taps:"))
    return Out(text, ((button,),))


def me_page(context: ContextTypes.DEFAULT_TYPE) -> str | None:
    """The Mini App's /me page (opened from the private chat), when the app is set up."""
    config: Settings = context.bot_data["settings"]
    page = config.app_page
    return urljoin(page, "me.html") if config.app_name and page else None


async def set_menu_button(application: AnyApplication, config: Settings) -> None:
    """The bot's menu button opens the app (when its page's URL is known)."""
    if not config.app_name or not config.app_page:
        return
    label = translator("en").gettext(N_("Open the table"))
    try:
        await application.bot.set_chat_menu_button(
            menu_button=MenuButtonWebApp(label, WebAppInfo(config.app_page))
        )
    except TelegramError:
        log.warning("could not set the menu button", exc_info=True)
