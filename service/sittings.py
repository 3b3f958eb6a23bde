"""Tables nobody closed (issue 42, point 3): a table with no record for the chat's idle gap
(`/set idle`, six hours by default) closes itself at the next command that plays at it. Its
sitting ends there: the night's card is offered once (`SittingClosed`, with a button to the
card of the records before it), and a new sitting begins at a new table of the same game,
options and seats (hand numbers start again at 1; /summary and /rating see a new sitting).

`close_idle` runs in the command's own transaction, before its use case (`service.core`),
with the clock it is given: the ledger's (`storage.gateway.ledger.now`), or a test's."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy.engine import Connection

from service.rating import SITTING_GAP
from service.replies import SittingClosed
from service.unit import Tx
from storage.gateway import chats, tables
from storage.gateway import ledger as book
from storage.gateway.chats import Tail
from storage.models import ChatRow, EventRow

NIGHT_PAGES = (60, 600, 6000)  # records read back from the newest until the night's start

DEFAULT_IDLE = 360  # minutes: six hours


def idle_gap(chat: ChatRow | None) -> timedelta | None:
    """How long a table may go without a record before it closes itself (None: never)."""
    minutes = DEFAULT_IDLE if chat is None else chat.idle
    return timedelta(minutes=minutes) if minutes > 0 else None


def gap_of(chat: ChatRow | None) -> timedelta:
    """The pause that ends a night for /summary: the idle gap, or six hours when it is off."""
    return idle_gap(chat) or timedelta(minutes=DEFAULT_IDLE)


def close_idle(tx: Tx, now: datetime) -> SittingClosed | None:
    """Close the open table if it had no record for the idle gap, and open its like: the
    sitting that ended, for the reply's note and its card's button; None if nothing closed."""
    gap = idle_gap(tx.chat)
    table = tx.table if tx.table_fresh else tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if gap is None or table is None:
        return None
    tail = tx.tail if tx.tail is not None and tx.tail.table_id == table.id else None
    if tail is not None:
        last_at = tail.last.created_at if tail.last is not None else None
    else:
        last = book.last_record(tx.db, table.id, tx.season.id)
        last_at = last.created_at if last is not None else None
    if last_at is None:
        return None  # nothing recorded at it yet: nothing to close, the table waits
    if now - last_at < gap:
        return None
    first = book.next_seq(tx.db, tx.chat.id)  # the new sitting's records start here
    tables.close_table(tx.db, tx.chat.id, tx.ctx.thread_id, now)
    tx.chat.sitting_from = first
    chats.save_settings(tx.db, tx.chat)
    fresh = tables.add_table(
        tx.db,
        chat_id=tx.chat.id,
        thread_id=tx.ctx.thread_id,
        season_id=tx.season.id,
        game=table.game,
        marathon=table.marathon,
        sisuang=table.sisuang,
        zerosum=table.zerosum,
        name=table.name,
    )
    fresh.seats, fresh.dealer = list(table.seats), 0  # a new evening: seat 1 deals first
    tables.set_seats(tx.db, fresh)
    tx.table, tx.table_fresh = fresh, True
    tx.tail = Tail(table_id=fresh.id, last=None, kongs=())
    idle = now - last_at
    return SittingClosed(
        hours=int(idle.total_seconds() // 3600),
        last_at=last_at,
        before=first,
        game=table.game,
        tz=tx.chat.tz,
    )


def night_events(
    db: Connection,
    season_id: int,
    *,
    before: int | None = None,
    since: int = 0,
    gap: timedelta = SITTING_GAP,
) -> Sequence[EventRow]:
    """The season's records newest first (numbered from `since`, the sitting's first, and
    below `before`), back to the last pause of play longer than `gap` (undone ones count as
    play): read in growing pages, so a night costs what it holds."""
    rows: list[EventRow] = []
    for page in NIGHT_PAGES:
        rows = book.hands(db, season_id, limit=page, before=before, since=since)
        for i in range(1, len(rows)):
            if rows[i - 1].created_at - rows[i].created_at > gap:
                return rows[:i]
        if len(rows) < page:
            break
    return rows
