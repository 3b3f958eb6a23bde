"""The real PTB Application in-process over the console's Bot API stand-in, fed prepared updates.

Updates are built (as Telegram sends them) before any timing starts. A timed run hands them to
the started Application the way the product's polling loop (`bot.delivery.polling.poll`)
does: in getUpdates-sized chunks (100), ``Update.de_json`` of each, then
``bot.delivery.polling.process_batch`` (``Application.process_update`` for the chats
concurrently, each chat's updates in order),
and waits for the chunk to finish. Each step includes the handler, the service and its
committed transaction, and the reply through the request layer (``bench.wire`` or the
``OfflineBotApi`` stand-in). The echo bot is delivered to the same way.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

from sqlalchemy.engine import Engine
from telegram import Update
from telegram.ext import (
    Application,
    ContextTypes,
    MessageHandler,
    filters,
)

from bench.product import JSON, Chat, OfflineBotApi, OfflineRequest, User, process_batch
from bench.wire import LeanRequest
from bot.app import build_application
from bot.settings import Settings
from storage.db import make_engine
from storage.migrate import upgrade

AnyApplication: TypeAlias = Application[Any, Any, Any, Any, Any, Any]
NAMES = ("Ann", "Bob", "Cat", "Dan")
POLL_CHUNK = 100  # updates per getUpdates answer (Telegram's default limit)


def players(chat_index: int) -> tuple[User, ...]:
    """Four distinct users for a chat (ids unique across chats)."""
    base = 500_000 + 10 * chat_index
    return tuple(
        User(base + seat, name, username=f"{name.lower()}{chat_index}", language_code="en")
        for seat, name in enumerate(NAMES)
    )


@dataclass(frozen=True)
class Message:
    """One message to send: in which chat, by which user, what text."""

    chat: Chat
    user: User
    text: str


@dataclass(frozen=True)
class Elapsed:
    """Wall-clock seconds and CPU seconds of this process (all threads) for one run, and how
    many messages the bot sent meanwhile."""

    wall: float
    cpu: float
    replies: int


@dataclass
class Driver:
    """An initialised Application over its own OfflineBotApi."""

    api: OfflineBotApi
    app: AnyApplication
    serial: bool = False  # one update at a time instead of chats concurrently (profiling)
    lean: LeanRequest | None = None  # answers sendMessage itself (bench.wire)

    def replies(self) -> int:
        return len(self.api.outbox) + (self.lean.sent if self.lean else 0)

    def prepare(self, messages: Sequence[Message]) -> list[JSON]:
        """The updates Telegram would deliver for ``messages`` (built now, not timed)."""
        updates: list[JSON] = []
        for message in messages:
            self.api.send_text(message.chat, message.user, message.text)
            updates.extend(self.api.take_updates())
        return updates

    async def process(self, update: JSON) -> None:
        """One update straight through ``process_update`` (checks and profiling)."""
        await self.app.process_update(Update.de_json(update, self.app.bot))

    async def run(self, updates: Sequence[JSON]) -> Elapsed:
        """Deliver ``updates`` as the product's polling loop does and wait until all are
        processed."""
        sent, bot = self.replies(), self.app.bot
        wall, cpu = time.perf_counter(), time.process_time()
        for first in range(0, len(updates), POLL_CHUNK):
            chunk = [Update.de_json(update, bot) for update in updates[first : first + POLL_CHUNK]]
            if self.serial:
                for update in chunk:
                    await self.app.process_update(update)
            else:
                await process_batch(self.app, chunk)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        return Elapsed(wall, cpu, self.replies() - sent)

    async def say(self, message: Message) -> str:
        """Send one message and return the bot's plain-text answer (for checks)."""
        seq = self.api.last_seq
        for update in self.prepare([message]):
            await self.process(update)
        return "\n".join(entry.plain_text for entry in self.api.outbox_since(seq))

    async def close(self) -> None:
        if self.app.running:
            await self.app.stop()
        await self.app.shutdown()


def new_api(chats: Sequence[Chat]) -> OfflineBotApi:
    """A Bot API stand-in that knows the chats and their four members."""
    api = OfflineBotApi()
    for index, chat in enumerate(chats):
        api.add_chat(chat)
        for user in players(index):
            api.set_member(chat.id, user, "member")
    return api


def migrated_engine(url: str) -> Engine:
    engine = make_engine(url)
    upgrade(engine)
    return engine


def _request(api: OfflineBotApi, lean: bool) -> OfflineRequest:
    return LeanRequest(api) if lean else OfflineRequest(api)


async def bot_driver(
    engine: Engine, url: str, chats: Sequence[Chat], *, serial: bool = False, lean: bool = False
) -> Driver:
    """The product Application (handlers, service, database) over the Bot API stand-in.

    ``serial`` (profiling only) processes one update at a time, for an A/B of the concurrency;
    ``lean`` answers sendMessage without the stand-in (``bench.wire``).
    """
    api = new_api(chats)
    # The flood guard is on, as deployed, with a limit no machine-paced evening reaches.
    config = Settings.given(
        token="123:BENCH", database_url=url, rate_limit=False, flood=(10**9, 10.0)
    )
    request = _request(api, lean)
    app = build_application(
        config, engine=engine, request=request, updates_request=OfflineRequest(api)
    )
    await app.initialize()
    if app.post_init:  # as the product's polling loop, webhook and console start it
        await app.post_init(app)
    await app.start()
    return Driver(api, app, serial, request if isinstance(request, LeanRequest) else None)


async def _echo(update: Update, _context: ContextTypes.DEFAULT_TYPE) -> None:
    message = update.effective_message
    if message is not None and message.text:
        await message.reply_text(message.text, do_quote=False)


async def _bare_driver(
    chats: Sequence[Chat], lean: bool, handlers: Callable[[AnyApplication], None]
) -> Driver:
    """A bare PTB Application over the same fake request layer, its handlers added."""
    api = new_api(chats)
    request = _request(api, lean)
    app = (
        Application.builder()
        .token("123:BENCH")
        .request(request)
        .get_updates_request(OfflineRequest(api))
        .concurrent_updates(False)
        .build()
    )
    handlers(app)
    await app.initialize()
    await app.start()
    return Driver(api, app, lean=request if isinstance(request, LeanRequest) else None)


async def echo_driver(chats: Sequence[Chat], *, lean: bool = False) -> Driver:
    """A bare PTB echo bot: the baseline."""

    def echo(app: AnyApplication) -> None:
        app.add_handler(MessageHandler(filters.COMMAND & filters.UpdateType.MESSAGE, _echo))

    return await _bare_driver(chats, lean, echo)


async def naive_driver(chats: Sequence[Chat], url: str, *, lean: bool = False) -> Driver:
    """The naive peer (``bench.naive_orm``: PTB + SQLModel's ORM), its tables on the database
    at ``url``."""
    from bench import naive_orm  # SQLModel's session machinery: only where it is measured

    def naive(app: AnyApplication) -> None:
        naive_orm.add_handlers(app, naive_orm.naive_engine(url))

    return await _bare_driver(chats, lean, naive)


def quiet_logs() -> None:
    """PTB and SQLAlchemy stay silent (nothing is printed but the JSON)."""
    logging.basicConfig(level=logging.ERROR)
    for name in ("telegram", "httpx", "sqlalchemy", "alembic"):
        logging.getLogger(name).setLevel(logging.ERROR)
