"""Running the bot so that no update is lost when the process dies: an update is confirmed to
Telegram (the next getUpdates offset, or the webhook's 200) only after it was processed. A
redelivered update changes nothing (the service claims update ids), so this is exactly-once.

PTB's own run_polling/run_webhook confirm an update as soon as it is queued, before any handler
ran: a crash then loses every queued update.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import logging
import signal
from collections.abc import Sequence
from typing import Any

import tornado.web
from telegram import Update
from telegram.error import Conflict, NetworkError, RetryAfter, TelegramError, TimedOut
from tornado.httpserver import HTTPServer

from bot.ptb_types import AnyApplication
from bot.updates import ChatLocks

log = logging.getLogger(__name__)
POLL_TIMEOUT = 30  # seconds of long polling
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def _chat_id(update: Update) -> int | None:
    return update.effective_chat.id if update.effective_chat else None


async def _process_in_order(app: AnyApplication, updates: Sequence[Update]) -> None:
    """One chat's updates, oldest first."""
    for update in updates:
        await app.process_update(update)  # handler errors go to the error handlers


async def process_batch(app: AnyApplication, updates: Sequence[Update]) -> None:
    """A getUpdates batch: chats concurrently, each chat's updates in order (a hand before its
    /undo). Their writes share commits (`storage.group_commit`)."""
    by_chat: dict[int | None, list[Update]] = {}
    for update in updates:
        by_chat.setdefault(_chat_id(update), []).append(update)
    await asyncio.gather(*(_process_in_order(app, ups) for ups in by_chat.values()))


async def _until_stopped() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def poll(app: AnyApplication) -> None:
    """Long polling; the offset moves past a batch only once all of it was processed."""
    stop = await _until_stopped()
    async with app:
        if app.post_init:
            await app.post_init(app)
        with contextlib.suppress(TelegramError):  # none set, or the server does not know it
            await app.bot.delete_webhook()
        await app.start()
        offset = 0
        while not stop.is_set():
            fetch = asyncio.ensure_future(
                app.bot.get_updates(
                    offset=offset, timeout=POLL_TIMEOUT, allowed_updates=Update.ALL_TYPES
                )
            )
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({fetch, stopped}, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if not fetch.done():
                fetch.cancel()
                break
            try:
                updates = fetch.result()
            except (RetryAfter, Conflict, NetworkError, TimedOut):
                log.warning("getUpdates failed; retrying", exc_info=True)
                await asyncio.sleep(2)
                continue
            await process_batch(app, updates)
            if updates:
                offset = updates[-1].update_id + 1  # confirmed with the next call
        with contextlib.suppress(TelegramError):  # confirm the last batch before leaving
            await app.bot.get_updates(offset=offset, timeout=0)
        await app.stop()
    if app.post_shutdown:
        await app.post_shutdown(app)


class _Hook(tornado.web.RequestHandler):
    def initialize(self, app: Any, secret: str | None, locks: ChatLocks) -> None:
        self.app, self.secret, self.locks = app, secret, locks

    async def post(self) -> None:
        given = self.request.headers.get(SECRET_HEADER) or ""
        if self.secret and not hmac.compare_digest(given.encode(), self.secret.encode()):
            raise tornado.web.HTTPError(403)
        try:
            update = Update.de_json(json.loads(self.request.body), self.app.bot)
        except (ValueError, KeyError, TypeError) as err:
            raise tornado.web.HTTPError(400) from err
        async with self.locks.hold(_chat_id(update)):
            await self.app.process_update(update)
        self.set_status(200)  # only now: Telegram drops the update


async def webhook(
    app: AnyApplication,
    *,
    listen: str,
    port: int,
    url_path: str,
    webhook_url: str,
    secret_token: str | None,
    more_routes: Sequence[Any] = (),
) -> None:
    """A webhook server that answers 200 once the update was processed (else Telegram retries);
    `more_routes` (the Mini App's) are served beside it."""
    stop = await _until_stopped()
    async with app:
        if app.post_init:
            await app.post_init(app)
        await app.start()
        hook = {"app": app, "secret": secret_token, "locks": ChatLocks()}
        routes = [(rf"/{url_path}/?", _Hook, hook), *more_routes]
        server = HTTPServer(tornado.web.Application(routes))
        server.listen(port, address=listen)
        await app.bot.set_webhook(
            webhook_url, secret_token=secret_token, allowed_updates=Update.ALL_TYPES
        )
        await stop.wait()
        server.stop()
        await app.stop()
    if app.post_shutdown:
        await app.post_shutdown(app)
