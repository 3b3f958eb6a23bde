"""Replies of webhook updates, sent after the webhook answered, from a queue in the database.

While the webhook handles an update, the Bot API calls that answer it (messages, a button's
answer, edits) are captured instead of sent (`bot.delivery.capture`): the handlers get
Telegram's answer at once, so no reply waits for the rate limiter. Once the update's change
committed, its calls are written to the outbox keyed by the update id (`save`; a redelivered
update's are not written twice), the webhook answers 200, and `Sender` sends them with a bot
of its own: in order per chat, chats in parallel, through the rate limiter, each marked sent
once Telegram accepted it. A reply lost to a crash is sent on the next start (a crash between
Telegram's acceptance and the mark sends it again: at least once, in practice once). Long
polling sends directly.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import secrets
import time
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

from sqlalchemy.engine import Connection, Engine
from telegram import Bot, InputFile
from telegram.error import BadRequest, ChatMigrated, Forbidden, InvalidToken, TelegramError

from bot.delivery.capture import Call
from bot.delivery.transient import backoff, is_transient
from service.core import Service
from storage.gateway import outbox as book
from storage.models import OutboxRow, utcnow

log = logging.getLogger(__name__)
LEASE = timedelta(seconds=15)  # a sender holds its calls this long (then another may take them)
BATCH = 200
IDLE = 5.0  # seconds between looks when nobody wakes the sender (other workers' calls)
#: Seconds a batch sends before what is left goes back to the queue: a group held back by the
#: rate limiter does not keep other chats' new replies waiting, and no call outlives its lease.
BATCH_TIME = 5.0
KEEP_SENT = timedelta(days=2)
PRUNE_EVERY = 3600.0
#: A stored call's Bot API method → the parameters its Bot method requires (the others go as
#: `api_kwargs`, as stored).
REQUIRED: dict[str, tuple[str, ...]] = {
    "sendMessage": ("chat_id", "text"),
    "sendPhoto": ("chat_id", "photo"),
    "sendDocument": ("chat_id", "document"),
    "editMessageText": ("text",),
    "editMessageReplyMarkup": (),
    "editMessageCaption": (),
    "answerCallbackQuery": ("callback_query_id",),
    "deleteMessage": ("chat_id", "message_id"),
}


def methods(bot: Bot) -> dict[str, Callable[..., Awaitable[Any]]]:
    """The Bot method that sends each Bot API method the outbox stores."""
    return {
        "sendMessage": bot.send_message,
        "sendPhoto": bot.send_photo,
        "sendDocument": bot.send_document,
        "editMessageText": bot.edit_message_text,
        "editMessageReplyMarkup": bot.edit_message_reply_markup,
        "editMessageCaption": bot.edit_message_caption,
        "answerCallbackQuery": bot.answer_callback_query,
        "deleteMessage": bot.delete_message,
    }


def arguments(row_chat: int | None, payload: dict[str, Any]) -> dict[str, Any]:
    """A stored call's parameters as sent before, its files as `InputFile`s."""
    kwargs: dict[str, Any] = dict(payload["params"])
    if row_chat is not None:
        kwargs["chat_id"] = row_chat  # an int: the rate limiter's per-group limits
    for name, (filename, content, mimetype) in payload["files"].items():
        kwargs[name] = InputFile(base64.b64decode(content), filename=filename)
        if mimetype:
            kwargs[name].mimetype = mimetype
    return kwargs


async def replay(bot: Bot, row: OutboxRow) -> None:
    """Send a stored call through its Bot method: what it requires by name, the rest (already
    encoded as PTB sent them) as `api_kwargs`. A call of another method, or one missing what
    its method requires, is refused (`BadRequest`): no later try can send it."""
    send = methods(bot).get(row.method)
    kwargs = arguments(row.chat_id, book.payload(row))
    required = REQUIRED.get(row.method, ())
    if send is None or any(name not in kwargs for name in required):
        raise BadRequest(f"outbox: cannot send {row.method} with {sorted(kwargs)}")
    given = {name: kwargs.pop(name) for name in required}
    await send(**given, api_kwargs=kwargs)


class Presence:
    """PostgreSQL: a sender is alive while a session of its own holds an advisory lock keyed by
    its number (`book.present`); a killed process's session ends with it, and other senders
    take over what it held at once (`book.alive`). SQLite: nothing (one process per file)."""

    def __init__(self, engine: Engine, number: int) -> None:
        self.engine, self.number = engine, number
        self._session: Connection | None = None

    def hold(self) -> None:
        """Take the lock on a new session (blocking: from a worker thread)."""
        if self.engine.dialect.name != "postgresql":
            return
        self.release()
        self._session = self.engine.connect()
        book.present(self._session, self.number)
        self._session.commit()  # the lock outlives the transaction: idle, not in one

    def release(self) -> None:
        """End the session, and the lock with it (never back to the pool holding it)."""
        if self._session is not None:
            with contextlib.suppress(Exception):  # a session already lost
                self._session.invalidate()
                self._session.close()
            self._session = None


class Sender:
    """Sends the outbox through `bot` (not the handlers': nothing it sends can be captured):
    the calls its process wrote (`save`, held for it), and the table's others (what a crash or
    another worker left) on start, when its own leave some waiting, and every few seconds."""

    def __init__(self, bot: Bot, service: Service) -> None:
        self.bot, self.service = bot, service
        self.number = secrets.randbits(62)  # this sender's, in the claims it holds
        self.wake = asyncio.Event()
        self.stopping = False
        self.sent = 0
        self._pruned_at: float | None = None
        self._handed: list[OutboxRow] = []  # this process's own calls, held since written
        self._looked_at: float | None = None  # when the table was last looked at (None: never)
        self._left = False  # this sender left calls free (their chat waits): claim them soon
        self._presence = Presence(service.engine, self.number)
        self._started = False

    async def start(self) -> None:
        """Announce this sender alive (before it writes a call held by itself)."""
        await asyncio.to_thread(self._presence.hold)
        self._started = True

    async def save(self, update_id: int, calls: list[Call]) -> None:
        """An update's calls into the outbox (one transaction; after the change committed);
        those held for this sender are sent by it without claiming them again."""
        if not calls:
            return
        rows = [(c.chat_id, c.method, c.payload) for c in calls]
        written = await self.service.write(
            lambda db: book.add(db, update_id, rows, holder=self.number, lease=LEASE)
        )
        self._handed.extend(row for row in written if row.claimed_by == self.number)
        self._left = self._left or any(row.claimed_by != self.number for row in written)
        self.wake.set()

    async def run(self) -> None:
        """Until `stop` (or cancelled)."""
        if not self._started:
            await self.start()
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
        await asyncio.to_thread(self._presence.release)

    async def drain_once(self) -> int:
        """Send one batch (the calls handed to it, and every few seconds the table's others:
        those another worker, or a crash, left); how many calls it had."""
        moment = utcnow()  # a call held too long (past its lease) is claimed again, in order
        rows = [row for row in self._handed if (row.claimed_until or moment) > moment]
        self._handed = []
        now = time.monotonic()
        if self._looked_at is None or now - self._looked_at > IDLE or self._left or not rows:
            first, self._looked_at = self._looked_at is None, now
            claimed, kept = await self.service.write(lambda db: self._claim(db, first))
            self._left = self._left and bool(claimed)  # nothing more to take for now
            rows = rows if kept else []  # its lock was lost: what it held went back, claimed
            rows = sorted({row.id: row for row in (*claimed, *rows)}.values(), key=_id)
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
                await replay(self.bot, row)
            except (BadRequest, Forbidden, ChatMigrated, InvalidToken) as err:
                log.warning("outbox call %s refused for good: %s", row.id, err)
                done.append((row.id, str(err)[:500]))
            except TelegramError as err:  # network, timeouts, flood control: later
                log.warning("outbox call %s not sent yet: %s", row.id, err)
                return done, [r.id for r in rows[i:]]
            else:
                done.append((row.id, None))
        return done, []

    def _claim(self, db: Connection, first: bool) -> tuple[list[OutboxRow], bool]:
        """The table's calls this sender may send now, and whether it still holds its own.
        What a dead sender held is free again: on PostgreSQL that of every sender whose lock
        nobody holds, claimed since the server started (this one's too if its session was
        lost: it takes the lock again and claims in order with the others; what was claimed
        before a restart keeps its lease, its sender may be sending it); on SQLite, where
        this process is the only one, everything another held, on its first look."""
        now = time.monotonic()
        if self._pruned_at is None or now - self._pruned_at > PRUNE_EVERY:
            book.prune(db, utcnow() - KEEP_SENT)
            self._pruned_at = now
        kept = True
        if db.dialect.name == "postgresql":
            living = book.alive(db)
            kept = self.number in living
            if not kept:
                log.warning("outbox: this sender's database session was lost; taking it again")
                self._presence.hold()
            book.take_over(db, living, leased_after=book.started(db) + LEASE)
        elif first:
            book.take_over(db, {self.number})
        return book.claim(db, holder=self.number, lease=LEASE, limit=BATCH), kept

    @staticmethod
    def _finish(db: Connection, outcomes: list[tuple[int, str | None]], retry: list[int]) -> None:
        book.done(db, outcomes)
        book.release(db, retry)


def _id(row: OutboxRow) -> int:
    return row.id
