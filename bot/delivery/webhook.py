"""The webhook: Telegram's POSTs answered 200 only once the update was processed and its
replies sent (or it was refused for good), so a crash loses nothing: an update not answered is
delivered again, and a recorded one answers with its recorded view. The secret is checked
before any of the body is read, at most `inbound.MAX_BODY` bytes are read, a body that is not
an update gets 400; a transient failure (the database, or Telegram unreachable for a reply) is
retried for a few seconds, then answered 503 so that Telegram delivers the update again.

Telegram sends a chat's next update only once the webhook answered the one before, so a chat's
replies go out in order whichever worker serves it; in one process a chat's updates also wait
for each other (`ChatLocks`). PTB's own run_webhook answers as soon as an update is queued,
before any handler ran.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Sequence
from typing import Any

import tornado.web
from telegram import Update
from tornado.httpserver import HTTPServer

from bot.delivery.inbound import MAX_BODY, Malformed, Unreadable, build_update, parse_body
from bot.delivery.transient import backoff, failures
from bot.delivery.updates import ChatLocks, chat_of, stop_on_signals
from bot.ptb_types import AnyApplication

log = logging.getLogger(__name__)
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
WEBHOOK_RETRY_FOR = 8.0  # seconds a webhook request retries a transient failure, then 503


@tornado.web.stream_request_body
class WebhookHandler(tornado.web.RequestHandler):
    """Telegram's POSTs: secret first, then at most `MAX_BODY` bytes, then the update."""

    def initialize(self, app: Any, secret: str, locks: ChatLocks) -> None:
        self.app, self.secret, self.locks = app, secret, locks
        self.chunks: list[bytes] = []
        self.size = 0

    def prepare(self) -> None:
        """Before any of the body is read: the secret, and the announced length."""
        given = self.request.headers.get(SECRET_HEADER) or ""
        if not hmac.compare_digest(given.encode(), self.secret.encode()):
            raise tornado.web.HTTPError(403)
        if self.request.method != "POST":
            raise tornado.web.HTTPError(405)
        length = self.request.headers.get("Content-Length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            raise tornado.web.HTTPError(413)

    def data_received(self, chunk: bytes) -> None:
        self.size += len(chunk)
        if self.size > MAX_BODY:  # chunked, longer than announced
            raise tornado.web.HTTPError(413)
        self.chunks.append(chunk)

    async def post(self) -> None:
        try:
            update = build_update(parse_body(b"".join(self.chunks)), self.app.bot)
        except Malformed as err:
            log.warning("webhook body refused (400): %s", err)
            raise tornado.web.HTTPError(400) from None
        except Unreadable as err:  # from Telegram, but this library cannot build it
            log.error("skipping an update that cannot be read: %s", err)
            self.set_status(200)
            return
        started = time.monotonic()
        async with self.locks.hold(chat_of(update)):
            await self._process(update, started)
        self.set_status(200)  # only now: Telegram drops the update

    async def _process(self, update: Update, started: float) -> None:
        """The update processed, its replies sent; tried again while it fails for now (a
        second try of a recorded update answers with its recorded view)."""
        record = failures(self.app)
        attempt = 0
        while True:
            await self.app.process_update(update)
            if not record.take(update.update_id):
                return
            pause = backoff(attempt)
            stopping = self.app.bot_data.get("fatal") is not None  # its database is gone
            if stopping or time.monotonic() - started + pause > WEBHOOK_RETRY_FOR:
                raise tornado.web.HTTPError(503)  # Telegram delivers it again later
            await asyncio.sleep(pause)
            attempt += 1


def routes(app: AnyApplication, url_path: str, secret: str) -> list[Any]:
    """The webhook server's routes (other features add theirs to this list)."""
    hook = {"app": app, "secret": secret, "locks": ChatLocks()}
    return [(rf"/{url_path}/?", WebhookHandler, hook)]


async def webhook(
    app: AnyApplication,
    *,
    listen: str,
    port: int,
    url_path: str,
    webhook_url: str,
    secret_token: str,
    more_routes: Sequence[Any] = (),
) -> None:
    """A webhook server that answers 200 once the update was processed and its replies sent
    (else Telegram delivers it again); `more_routes` (the Mini App's) are served beside it."""
    stop = app.bot_data["stop"] = await stop_on_signals()
    async with app:
        if app.post_init:
            await app.post_init(app)
        await app.start()
        server = HTTPServer(
            tornado.web.Application([*routes(app, url_path, secret_token), *more_routes]),
            max_body_size=MAX_BODY,
        )
        server.listen(port, address=listen)
        await app.bot.set_webhook(
            webhook_url, secret_token=secret_token, allowed_updates=Update.ALL_TYPES
        )
        await stop.wait()
        server.stop()
        await app.stop()
    if app.post_shutdown:
        await app.post_shutdown(app)
