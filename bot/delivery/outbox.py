"""Replies of webhook updates, sent after the webhook answered, from a queue in the database.

While the webhook handles an update, the Bot API calls that answer it (messages, a button's
answer, edits) are captured instead of sent (`capturing`): the handlers get a stand-in result
at once, so no reply waits for the rate limiter. Once the update's change committed, its calls
are written to the outbox keyed by the update id (`save`; a redelivered update's are not written
twice), the webhook answers 200, and `Sender` sends them: in order per chat, chats in parallel,
through the rate limiter, each marked sent once Telegram accepted it. A reply lost to a crash is
sent on the next start (a crash between Telegram's acceptance and the mark sends it again: at
least once, in practice once). Long polling sends directly, as before.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

from telegram import Bot, InputFile
from telegram.error import BadRequest, ChatMigrated, Forbidden, InvalidToken, TelegramError
from telegram.ext import BaseRateLimiter
from telegram.request import RequestData
from telegram.request._requestparameter import RequestParameter

from bot.delivery.capture import Call, current
from bot.delivery.transient import backoff, is_transient
from service.core import Service
from storage.gateway import outbox as book
from storage.rows import OutboxRow
from storage.sql import Sql

log = logging.getLogger(__name__)
#: What answers an update; anything else (getChatMember…) is called at once.
CAPTURED = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "editMessageText",
        "editMessageReplyMarkup",
        "editMessageCaption",
        "answerCallbackQuery",
        "deleteMessage",
    }
)
RETURNS_MESSAGE = frozenset({"sendMessage", "sendPhoto", "sendDocument"})
LEASE = timedelta(seconds=120)  # a sender holds its calls this long (then another may take them)
BATCH = 200
IDLE = 5.0  # seconds between looks when nobody wakes the sender (other workers' calls)
#: Seconds a batch sends before what is left goes back to the queue: a group held back by the
#: rate limiter does not keep other chats' new replies waiting, and no call outlives its lease.
BATCH_TIME = 5.0
KEEP_SENT = timedelta(days=2)
PRUNE_EVERY = 3600.0


def to_call(endpoint: str, data: dict[str, Any]) -> Call:
    """A call as stored: its parameters JSON-encoded as sent, files inline (base64)."""
    request = RequestData([RequestParameter.from_input(k, v) for k, v in data.items()])
    files = {
        name: [
            part[0],
            base64.b64encode(_content(part[1])).decode(),
            part[2] if len(part) > 2 else None,
        ]
        for name, part in request.multipart_data.items()
    }
    chat = data.get("chat_id")
    chat_id = chat if isinstance(chat, int) and not isinstance(chat, bool) else None
    return Call(chat_id, endpoint, {"params": request.json_parameters, "files": files})


def _content(value: Any) -> bytes:
    return value if isinstance(value, bytes) else bytes(value.read())


def api_kwargs(row_chat: int | None, payload: dict[str, Any]) -> dict[str, Any]:
    """A stored call's arguments for `Bot.do_api_request`."""
    kwargs: dict[str, Any] = dict(payload["params"])
    if row_chat is not None:
        kwargs["chat_id"] = row_chat  # an int: the rate limiter's per-group limits
    for name, (filename, content, mimetype) in payload["files"].items():
        kwargs[name] = InputFile(base64.b64decode(content), filename=filename)
        if mimetype:
            kwargs[name].mimetype = mimetype
    return kwargs


def stand_in(endpoint: str, data: dict[str, Any]) -> bool | dict[str, Any]:
    """What the handlers get back for a captured call."""
    if endpoint not in RETURNS_MESSAGE:
        return True
    chat = data.get("chat_id")
    chat_id = chat if isinstance(chat, int) else 0
    return {
        "message_id": 0,
        "date": int(time.time()),
        "chat": {"id": chat_id, "type": "supergroup" if chat_id < 0 else "private"},
    }


class CapturingLimiter(BaseRateLimiter[Any]):
    """The bot's rate limiter: captures the calls that answer an update while `capturing`, and
    passes everything else to the real limiter (if any)."""

    def __init__(self, inner: BaseRateLimiter[Any] | None) -> None:
        self.inner = inner

    async def initialize(self) -> None:
        if self.inner is not None:
            await self.inner.initialize()

    async def shutdown(self) -> None:
        if self.inner is not None:
            await self.inner.shutdown()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: Any,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        calls = current()
        if calls is not None and endpoint in CAPTURED:
            calls.append(to_call(endpoint, data))
            return stand_in(endpoint, data)
        if self.inner is None:
            return await callback(*args, **kwargs)
        return await self.inner.process_request(
            callback, args, kwargs, endpoint, data, rate_limit_args
        )


async def save(service: Service, update_id: int, calls: list[Call]) -> None:
    """An update's calls into the outbox (one transaction; after the change committed)."""
    if calls:
        rows = [(c.chat_id, c.method, c.payload) for c in calls]
        await service.write(lambda db: book.add(db, update_id, rows))


class Sender:
    """Sends the outbox: on start (what a crash left), when woken, and every few seconds."""

    def __init__(self, bot: Bot, service: Service) -> None:
        self.bot, self.service = bot, service
        self.wake = asyncio.Event()
        self.stopping = False
        self.sent = 0
        self._pruned_at: float | None = None

    async def run(self) -> None:
        """Until `stop` (or cancelled)."""
        failures = 0
        while not self.stopping:
            self.wake.clear()
            try:
                busy = await self.drain_once()
                failures = 0
            except Exception as err:
                if not is_transient(err):
                    log.exception("outbox sender failed")
                else:
                    log.warning("outbox unreachable for now: %s", err)
                await asyncio.sleep(backoff(failures))
                failures += 1
                continue
            if not busy:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.wake.wait(), IDLE)

    async def stop(self, running: asyncio.Task[None]) -> None:
        """Let the batch being sent finish (and be marked), then end `running`."""
        self.stopping = True
        self.wake.set()
        try:
            await asyncio.wait_for(running, BATCH_TIME + 10)
        except TimeoutError:  # a call hangs: cancelled; its lease lets the next start send it
            log.warning("outbox sender stopped mid-batch")

    async def drain_once(self) -> int:
        """Send one batch; how many calls it had."""
        rows = await self.service.write(self._claim)
        by_chat: dict[int | None, list[OutboxRow]] = {}
        for row in rows:
            by_chat.setdefault(row.chat_id, []).append(row)
        until = time.monotonic() + BATCH_TIME
        results = await asyncio.gather(*(self._send_chat(chat, until) for chat in by_chat.values()))
        outcomes = [o for done, _ in results for o in done]
        retry = [i for _, later in results for i in later]
        await self._mark(outcomes, retry)
        self.sent += sum(1 for _, error in outcomes if error is None)
        return len(rows)

    async def _mark(self, outcomes: list[tuple[int, str | None]], retry: list[int]) -> None:
        """Record what was sent, trying again while the database is away: calls Telegram took
        must not go out a second time when their lease ends."""
        attempt = 0
        while True:
            try:
                await self.service.write(lambda db: self._finish(db, outcomes, retry))
                return
            except Exception as err:
                if not is_transient(err) or attempt > 20:
                    raise
                log.warning("outbox: could not mark sent calls yet: %s", err)
                await asyncio.sleep(backoff(attempt))
                attempt += 1

    async def _send_chat(
        self, rows: list[OutboxRow], until: float
    ) -> tuple[list[tuple[int, str | None]], list[int]]:
        """One chat's calls in order, until `until`; from the first Telegram cannot take now,
        the rest wait."""
        done: list[tuple[int, str | None]] = []
        for i, row in enumerate(rows):
            if time.monotonic() > until:
                return done, [r.id for r in rows[i:]]
            try:
                # By name as stored: `_post` is `do_api_request` without its typed-method nudge
                await self.bot._post(row.method, api_kwargs=api_kwargs(row.chat_id, row.payload))
            except (BadRequest, Forbidden, ChatMigrated, InvalidToken) as err:
                log.warning("outbox call %s refused for good: %s", row.id, err)
                done.append((row.id, str(err)[:500]))
            except TelegramError as err:  # network, timeouts, flood control: later
                log.warning("outbox call %s not sent yet: %s", row.id, err)
                return done, [r.id for r in rows[i:]]
            else:
                done.append((row.id, None))
        return done, []

    def _claim(self, db: Sql) -> list[OutboxRow]:
        now = time.monotonic()
        if self._pruned_at is None or now - self._pruned_at > PRUNE_EVERY:
            book.prune(db, KEEP_SENT)
            self._pruned_at = now
        return book.claim(db, LEASE, BATCH)

    @staticmethod
    def _finish(db: Sql, outcomes: list[tuple[int, str | None]], retry: list[int]) -> None:
        book.done(db, outcomes)
        book.release(db, retry)
