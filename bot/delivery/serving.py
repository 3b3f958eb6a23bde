"""Running the bot so that no update is lost: an update is confirmed to Telegram (the next
getUpdates offset, or the webhook's 200) only once it was processed, or refused for good. A
redelivered update changes nothing (the service claims update ids), so this is exactly-once.

- An update jifen cannot read (`bot.delivery.inbound`) is logged, confirmed and skipped: it neither
  stops the polling loop nor is redelivered forever; the updates around it are processed.
- A transient database failure (`bot.delivery.transient`) is not confirmed: polling tries the update
  again with backoff (its chat's later updates wait behind it), the webhook for a few seconds,
  then answers 503 so that Telegram redelivers it.
- The webhook checks the secret before it reads a body, reads at most `inbound.MAX_BODY`
  bytes, answers 400 to a body that is not an update, and answers once the change committed:
  replies go out afterwards from the outbox (`bot.delivery.outbox`).

PTB's own run_polling/run_webhook confirm an update as soon as it is queued, before any handler
ran: a crash then loses every queued update.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import signal
import time
from collections.abc import Sequence
from typing import Any

import tornado.web
from telegram import Update
from telegram.error import Conflict, NetworkError, RetryAfter, TelegramError, TimedOut
from tornado.httpserver import HTTPServer

from bot.delivery import outbox
from bot.delivery.capture import capturing
from bot.delivery.inbound import MAX_BODY, Malformed, Unreadable, build_update, parse_body
from bot.delivery.transient import backoff, failures, is_transient
from bot.delivery.updates import ChatLocks
from bot.ptb_types import AnyApplication

log = logging.getLogger(__name__)
POLL_TIMEOUT = 30  # seconds of long polling
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
WEBHOOK_RETRY_FOR = 8.0  # seconds a webhook request retries a transient failure, then 503


def _chat_id(update: Update) -> int | None:
    return update.effective_chat.id if update.effective_chat else None


async def _process_in_order(app: AnyApplication, updates: Sequence[Update]) -> list[Update]:
    """One chat's updates, oldest first; those left from the first that failed for now."""
    record = failures(app)
    for i, update in enumerate(updates):
        await app.process_update(update)  # handler errors go to the error handlers
        if record.take(update.update_id):
            return list(updates[i:])
    return []


async def process_batch(
    app: AnyApplication, updates: Sequence[Update], stop: asyncio.Event | None = None
) -> list[int]:
    """A getUpdates batch: chats concurrently, each chat's updates in order (a hand before its
    /undo). Their writes share commits (`storage.group_commit`). Updates that failed for a
    transient reason are tried again with backoff until they go through or `stop` is set;
    returns the ids of those left unprocessed."""
    by_chat: dict[int | None, list[Update]] = {}
    for update in updates:
        by_chat.setdefault(_chat_id(update), []).append(update)
    waiting = list(by_chat.values())
    attempt = 0
    while waiting:
        left = await asyncio.gather(*(_process_in_order(app, ups) for ups in waiting))
        waiting = [ups for ups in left if ups]
        if not waiting or (stop is not None and stop.is_set()):
            break
        log.warning("%d chat(s) wait for the database; trying again", len(waiting))
        await _sleep(backoff(attempt), stop)
        attempt += 1
    return [u.update_id for ups in waiting for u in ups]


async def _sleep(seconds: float, stop: asyncio.Event | None) -> None:
    if stop is None:
        await asyncio.sleep(seconds)
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


def read_batch(app: AnyApplication, raw: Any) -> tuple[list[Update], int | None]:
    """getUpdates' raw result as updates, those that cannot be read logged and left out; and
    the highest update id seen (to confirm the unreadable ones too)."""
    if not isinstance(raw, list):
        log.error("getUpdates returned %s, not a list", type(raw).__name__)
        return [], None
    updates: list[Update] = []
    last: int | None = None
    for item in raw:
        update_id = item.get("update_id") if isinstance(item, dict) else None
        if isinstance(update_id, int):
            last = update_id if last is None else max(last, update_id)
        try:
            updates.append(build_update(item, app.bot))
        except (Malformed, Unreadable) as err:
            log.error("skipping an update that cannot be read: %s", err)
    return updates, last


async def _until_stopped() -> asyncio.Event:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    return stop


async def _fetch(app: AnyApplication, offset: int) -> Any:
    """getUpdates as raw JSON: one element the library cannot build must not sink the batch."""
    # `_post` is `do_api_request` without its nudge towards the typed (and building) method.
    return await app.bot._post(
        "getUpdates",
        api_kwargs={"offset": offset, "timeout": POLL_TIMEOUT, "allowed_updates": Update.ALL_TYPES},
        read_timeout=POLL_TIMEOUT + 10,
    )


async def poll(app: AnyApplication, stop: asyncio.Event | None = None) -> None:
    """Long polling until SIGINT/SIGTERM (or `stop`); the offset moves past a batch only once
    all of it was processed."""
    stop = stop or await _until_stopped()
    async with app:
        if app.post_init:
            await app.post_init(app)
        with contextlib.suppress(TelegramError):  # none set, or the server does not know it
            await app.bot.delete_webhook()
        await app.start()
        offset = 0
        while not stop.is_set():
            fetch = asyncio.ensure_future(_fetch(app, offset))
            stopped = asyncio.ensure_future(stop.wait())
            await asyncio.wait({fetch, stopped}, return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            if not fetch.done():
                fetch.cancel()
                break
            try:
                raw = fetch.result()
            except (RetryAfter, Conflict, NetworkError, TimedOut):
                log.warning("getUpdates failed; retrying", exc_info=True)
                await asyncio.sleep(2)
                continue
            updates, last = read_batch(app, raw)
            left = await process_batch(app, updates, stop)
            if left:  # stopping while the database is away: these come again next start
                offset = min(left)
            elif last is not None:
                offset = last + 1  # confirmed with the next call
        with contextlib.suppress(TelegramError):  # confirm the last batch before leaving
            await app.bot.get_updates(offset=offset, timeout=0)
        await app.stop()
    if app.post_shutdown:
        await app.post_shutdown(app)


@tornado.web.stream_request_body
class WebhookHandler(tornado.web.RequestHandler):
    """Telegram's POSTs: secret first, then at most `MAX_BODY` bytes, then the update."""

    def initialize(self, app: Any, secret: str, locks: ChatLocks, sender: outbox.Sender) -> None:
        self.app, self.secret, self.locks, self.sender = app, secret, locks, sender
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
        async with self.locks.hold(_chat_id(update)):
            await self._process(update, started)
        self.set_status(200)  # only now: Telegram drops the update
        self.sender.wake.set()

    async def _process(self, update: Update, started: float) -> None:
        record = failures(self.app)
        attempt = 0
        while True:
            with capturing() as calls:
                await self.app.process_update(update)
            if not record.take(update.update_id):
                break
            pause = backoff(attempt)
            if time.monotonic() - started + pause > WEBHOOK_RETRY_FOR:
                raise tornado.web.HTTPError(503)  # Telegram delivers it again later
            await asyncio.sleep(pause)
            attempt += 1
        try:
            await outbox.save(self.app.bot_data["service"], update.update_id, calls)
        except Exception as err:
            if not is_transient(err):
                raise
            log.warning(
                "update %s: replies not saved (%s); asking for it again", update.update_id, err
            )
            raise tornado.web.HTTPError(503) from None


def routes(app: AnyApplication, url_path: str, secret: str, sender: outbox.Sender) -> list[Any]:
    """The webhook server's routes (other features add theirs to this list)."""
    hook = {"app": app, "secret": secret, "locks": ChatLocks(), "sender": sender}
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
    """A webhook server that answers 200 once the update was processed (else Telegram retries)
    and sends the replies afterwards; `more_routes` (the Mini App's) are served beside it."""
    stop = await _until_stopped()
    async with app:
        if app.post_init:
            await app.post_init(app)
        await app.start()
        sender = outbox.Sender(app.bot, app.bot_data["service"])
        sending = asyncio.create_task(sender.run())
        server = HTTPServer(
            tornado.web.Application([*routes(app, url_path, secret_token, sender), *more_routes]),
            max_body_size=MAX_BODY,
        )
        server.listen(port, address=listen)
        await app.bot.set_webhook(
            webhook_url, secret_token=secret_token, allowed_updates=Update.ALL_TYPES
        )
        await stop.wait()
        server.stop()
        await sender.stop(sending)
        await app.stop()
    if app.post_shutdown:
        await app.post_shutdown(app)
