"""Long polling so that no update is lost: the getUpdates offset moves past a batch only once
all of it was processed, or refused for good. A redelivered update changes nothing (the
service claims update ids), so this is exactly-once.

- An update jifen cannot read is confirmed and skipped (`bot.delivery.inbound.UpdatesRequest`):
  it neither stops the loop nor comes back forever; the updates around it are processed.
- A transient database failure (`bot.delivery.transient`) is not confirmed: the update is
  tried again with backoff, its chat's later updates waiting behind it, other chats going on.

PTB's own run_polling confirms an update as soon as it is queued, before any handler ran: a
crash then loses every queued update.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence

from telegram import Update
from telegram.error import Conflict, NetworkError, RetryAfter, TelegramError, TimedOut

from bot.delivery.transient import backoff, failures
from bot.delivery.updates import chat_of, stop_on_signals
from bot.ptb_types import AnyApplication

log = logging.getLogger(__name__)
POLL_TIMEOUT = 30  # seconds of long polling
READ_MARGIN = 10  # seconds getUpdates' answer may take beyond them


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
        by_chat.setdefault(chat_of(update), []).append(update)
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


async def _fetch(app: AnyApplication, offset: int) -> tuple[Update, ...]:
    updates: tuple[Update, ...] = await app.bot.get_updates(
        offset=offset,
        timeout=POLL_TIMEOUT,
        allowed_updates=Update.ALL_TYPES,
        read_timeout=READ_MARGIN,  # PTB adds the timeout
    )
    return updates


async def poll(app: AnyApplication, stop: asyncio.Event | None = None) -> None:
    """Long polling until SIGINT/SIGTERM (or `stop`); the offset moves past a batch only once
    all of it was processed."""
    stop = app.bot_data["stop"] = stop or await stop_on_signals()
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
                updates = fetch.result()
            except (RetryAfter, Conflict, NetworkError, TimedOut):
                log.warning("getUpdates failed; retrying", exc_info=True)
                await asyncio.sleep(2)
                continue
            left = await process_batch(app, updates, stop)
            if left:  # stopping while the database is away: these come again next start
                offset = min(left)
            elif updates:
                offset = max(u.update_id for u in updates) + 1  # confirmed with the next call
        with contextlib.suppress(TelegramError):  # confirm the last batch before leaving
            await app.bot.get_updates(offset=offset, timeout=0)
        await app.stop()
    if app.post_shutdown:
        await app.post_shutdown(app)
