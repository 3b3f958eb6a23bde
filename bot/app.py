"""Wiring: the PTB Application with its handlers, start-up work and the service behind it."""

from __future__ import annotations

import logging

from sqlalchemy.engine import Engine
from telegram import (
    BotCommand,
    BotCommandScope,
    BotCommandScopeAllChatAdministrators,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
    BotCommandScopeDefault,
    Update,
)
from telegram.constants import ParseMode
from telegram.error import TelegramError
from telegram.ext import (
    AIORateLimiter,
    Application,
    CallbackQueryHandler,
    Defaults,
    MessageHandler,
    TypeHandler,
    filters,
)
from telegram.request import BaseRequest, HTTPXRequest

from bot.chat import handlers
from bot.chat.buttons import on_button
from bot.chat.commands import TableHandler
from bot.chat.flood import FloodGuard
from bot.chat.flood_gate import flood_gate
from bot.chat.guest import GuestHandler
from bot.commands import catalog
from bot.delivery.bot_api import Menus, menu_command, sync_menus
from bot.delivery.inbound import UpdatesRequest
from bot.delivery.transient import on_transient_error
from bot.i18n import translator
from bot.miniapp.guard import PREVIEWS_LIMIT, PREVIEWS_WINDOW, VIEWS_LIMIT, VIEWS_WINDOW
from bot.miniapp.link import set_menu_button
from bot.ptb_types import AnyApplication, AnyBuilder
from bot.settings import Settings
from service.core import Service
from storage.db import make_engine

log = logging.getLogger(__name__)
#: Every reply is HTML (the renderer escapes what it fills in), as rules-bot sets it.
DEFAULTS = Defaults(parse_mode=ParseMode.HTML)


def menus() -> Menus:
    """The command menus from the table, in English (every language without its own list) and
    Chinese: a group's members see the table's commands, its admins those and the admins'
    (`BotCommandScopeAllChatAdministrators`), a private chat /me, /mine and /help."""
    found: dict[tuple[BotCommandScope, str | None], list[BotCommand]] = {}
    lists = (
        (BotCommandScopeDefault(), catalog.MENU),
        (BotCommandScopeAllGroupChats(), catalog.MENU),
        (BotCommandScopeAllChatAdministrators(), catalog.ADMIN_MENU),
        (BotCommandScopeAllPrivateChats(), catalog.PRIVATE_MENU),
    )
    for lang in ("en", "zh"):
        say = translator(lang).gettext
        for scope, commands in lists:
            key = (scope, None if lang == "en" else lang)
            found[key] = [
                menu_command(c.name, say(c.menu), ephemeral=c.ephemeral) for c in commands if c.menu
            ]
    return found


async def set_menu(application: AnyApplication) -> None:
    """The command menus (`menus`), each sent only where Telegram's differs (a restart, a
    second worker: nothing new is sent). A Bot API server that refuses them (an old
    self-hosted one) does not stop the bot. The menu button that opens the app stays."""
    try:
        await sync_menus(application.bot, menus())
    except TelegramError:
        log.warning("could not set the command menu", exc_info=True)
    await set_menu_button(application, application.bot_data["settings"])


async def started(application: AnyApplication) -> None:
    """After start-up (`post_init`): the command menu."""
    await set_menu(application)


async def close_service(application: AnyApplication) -> None:
    """After shutdown (`post_shutdown`): the service lets go of its connections."""
    await application.bot_data["service"].close()


def build_application(
    config: Settings,
    *,
    engine: Engine | None = None,
    request: BaseRequest | None = None,
    updates_request: BaseRequest | None = None,
) -> AnyApplication:
    """The bot; `request` replaces the network layer (offline console, tests); getUpdates goes
    through `UpdatesRequest` (an update PTB cannot build does not sink its batch)."""
    network = request or HTTPXRequest(connection_pool_size=256)  # PTB's defaults
    polling = updates_request or request or HTTPXRequest(connection_pool_size=1)
    builder: AnyBuilder = Application.builder().token(config.token or "0:offline")
    builder = builder.defaults(DEFAULTS)
    builder = builder.request(network)
    builder = builder.get_updates_request(UpdatesRequest(polling))
    base = (config.api_base_url or "https://api.telegram.org/bot").rstrip("/")
    if config.api_base_url:
        builder = builder.base_url(base).base_file_url(base.replace("/bot", "/file/bot"))
    limiter = AIORateLimiter(max_retries=3) if config.rate_limit and request is None else None
    if limiter is not None:
        builder = builder.rate_limiter(limiter)
    builder = builder.post_init(started).post_shutdown(close_service)
    application = builder.build()
    application.bot_data["settings"] = config
    application.bot_data["service"] = Service(engine or make_engine(config.database_url))
    if config.flood is not None:
        limit, window = config.flood
        application.bot_data["flood"] = FloodGuard(limit=limit, window=window)
        # the Mini App's reads: a budget of their own, not the commands a member types
        application.bot_data["views"] = FloodGuard(limit=VIEWS_LIMIT, window=VIEWS_WINDOW)
        # ... and its previews, one at every tap of a form: they write nothing either
        previews = FloodGuard(limit=PREVIEWS_LIMIT, window=PREVIEWS_WINDOW)
        application.bot_data["previews"] = previews
    application.add_handler(TypeHandler(Update, flood_gate), group=-1)
    application.add_handler(TableHandler())  # every command of the table (new messages only)
    application.add_handler(CallbackQueryHandler(on_button))
    application.add_handler(GuestHandler())  # `@jifen_bot …` in a chat without the bot
    application.add_handler(MessageHandler(filters.StatusUpdate.MIGRATE, handlers.on_migrate))
    application.add_error_handler(on_transient_error)  # first: a retry, not a "Sorry"
    application.add_error_handler(handlers.on_error)
    return application
