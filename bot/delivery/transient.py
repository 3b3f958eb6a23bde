"""Failures that pass: the database's (PostgreSQL restarting, SQLite busy past its timeout, a
full disk), and Telegram unreachable for a reply (the network, its flood control past the rate
limiter's retries). The update is not acknowledged but processed again, with backoff, until it
goes through (a recorded one answers with its recorded view).

The error handler registered first (`on_transient_error`) notes the update as failed for now
and stops the generic "Sorry" handler; for the database, the member is told once per update
that the command will be recorded as soon as it is back (no need to type it again).
`bot.delivery.polling` and `bot.delivery.webhook` retry. A database file pulled away under the
bot (`FileReplaced`) is handled the same way, and stops the bot: nothing more is confirmed
until it is put back. A full disk is met by folding the WAL back first
(`bot.delivery.full_disk`).
"""

from __future__ import annotations

import asyncio
import html
import logging
import sqlite3
from collections import OrderedDict

from sqlalchemy import exc as sa
from telegram import Update
from telegram.error import BadRequest, NetworkError, RetryAfter, TelegramError
from telegram.ext import Application, ApplicationHandlerStop, ContextTypes

from bot.delivery.full_disk import make_room
from bot.i18n import N_
from bot.presentation.render import Renderer
from service.language import shown
from storage import disk
from storage.db import FileReplaced

log = logging.getLogger(__name__)
NOTICE = N_(
    "The score book is briefly unavailable. I will record your command as soon as it is "
    "back; no need to send it again."
)
TOLD_MEMORY = 10_000  # update ids whose member was told, remembered per process
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)  # seconds between tries; the last one repeats


def is_transient(error: BaseException | None) -> bool:
    """A database error that a later try may not meet: lost or refused connections, locks,
    I/O errors and a full disk. Integrity errors and bugs are not."""
    if error is None:
        return False
    if isinstance(error, FileReplaced):  # not confirmed; the bot stops (`stop_for_good`)
        return True
    if isinstance(error, sa.DBAPIError):
        if error.connection_invalidated:
            return True
        return is_transient(error.orig) or isinstance(
            error, sa.OperationalError | sa.InterfaceError
        )
    if isinstance(error, sa.TimeoutError | sa.DisconnectionError):  # pool exhausted, dropped
        return True
    if isinstance(error, sqlite3.OperationalError | sqlite3.InterfaceError):
        return True
    if any(  # psycopg's own, raised through the gateway's raw connection: lost, deadlock…
        c.__module__.startswith("psycopg") and c.__name__ == "OperationalError"
        for c in type(error).__mro__
    ):
        return True
    return isinstance(error, OSError) and not isinstance(error, TelegramError)


def backoff(attempt: int) -> float:
    """Seconds to wait before try number `attempt` + 1."""
    return BACKOFF[min(attempt, len(BACKOFF) - 1)]


class Failures:
    """The updates of this process that failed for a transient reason (to be tried again), and
    those whose member was already told so."""

    def __init__(self) -> None:
        self.pending: set[int] = set()
        self._told: OrderedDict[int, None] = OrderedDict()

    def take(self, update_id: int) -> bool:
        """Whether the update failed for now (and forget it: the next try starts afresh)."""
        if update_id in self.pending:
            self.pending.discard(update_id)
            return True
        return False

    def first_notice(self, update_id: int) -> bool:
        """True once per update: its member should be told."""
        if update_id in self._told:
            return False
        self._told[update_id] = None
        if len(self._told) > TOLD_MEMORY:
            self._told.popitem(last=False)
        return True


def failures(application: Application) -> Failures:  # type: ignore[type-arg]
    """The application's record of transient failures (made on first use)."""
    found = application.bot_data.get("transient")
    if not isinstance(found, Failures):
        found = application.bot_data["transient"] = Failures()
    return found


def unsent(error: BaseException | None) -> bool:
    """Telegram did not take a reply for now: unreachable, timed out, or its flood control
    still asking to wait (the rate limiter retried already). A refusal (`BadRequest`…) is for
    good."""
    return isinstance(error, NetworkError | RetryAfter) and not isinstance(error, BadRequest)


async def on_transient_error(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Registered before the generic error handler: a transient failure is noted for a retry
    (a database's said once to the member), and the generic "Sorry" is not sent; neither for a
    reply Telegram refused for good (a chat it does not know, a bot blocked: logged)."""
    if not isinstance(update, Update):
        return
    if unsent(context.error):  # nothing to tell: Telegram is what cannot be reached
        log.warning("update %s: a reply not sent for now: %s", update.update_id, context.error)
        failures(context.application).pending.add(update.update_id)
        raise ApplicationHandlerStop
    if isinstance(context.error, TelegramError):  # refused for good: an apology would be too
        log.warning("update %s: a reply refused for good: %s", update.update_id, context.error)
        raise ApplicationHandlerStop
    if not is_transient(context.error):
        return
    log.warning("update %s failed for now: %s", update.update_id, context.error)
    if isinstance(context.error, FileReplaced):
        stop_for_good(context.application, context.error)
    if disk.is_full(context.error):  # before the retry: the WAL folded back, the need logged
        await make_room(context.application)
    record = failures(context.application)
    record.pending.add(update.update_id)
    if record.first_notice(update.update_id):
        await tell(update)
    raise ApplicationHandlerStop


async def tell(update: Update) -> None:
    """The notice, in the member's language (the chat's choice is in the database, unreachable
    now), straight to Telegram."""
    message, user, query = update.effective_message, update.effective_user, update.callback_query
    renderer = Renderer(shown(None, user.language_code if user else None))
    text = renderer._(NOTICE)
    try:
        if query is not None:
            await query.answer(html.unescape(text)[:200], show_alert=True)
        elif message is not None:
            await message.reply_text(text, do_quote=True)
    except TelegramError:
        log.warning("could not tell update %s's member to wait", update.update_id)


def stop_for_good(application: Application, error: BaseException) -> None:  # type: ignore[type-arg]
    """The database file was deleted or replaced under the running bot: stop serving (the
    loops' stop event, `bot_data["stop"]`); `jifen run` then exits 1. Updates not processed
    are not confirmed: Telegram delivers them again once the database is back."""
    if application.bot_data.get("fatal") is None:
        log.critical(
            "stopping: %s (deleted or replaced while the bot ran); nothing more is confirmed. "
            "Put the database back (or restore a backup with the bot stopped), then start it",
            error,
        )
        application.bot_data["fatal"] = str(error)
    stop = application.bot_data.get("stop")
    if isinstance(stop, asyncio.Event):
        stop.set()
