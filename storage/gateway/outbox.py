"""The outbox: Bot API calls waiting to be sent, each held by one sender at a time, a chat's in
order (docs/storage.md)."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import datetime, timedelta
from typing import Any

import orjson
import sqlalchemy as sa
from sqlalchemy import and_, bindparam, delete, func, literal, or_, select, update
from sqlalchemy.engine import Connection

from storage.gateway import Upsert, shaped
from storage.models import OutboxRow, outbox, utcnow

OUTBOX_LOCK = 7_310_452  # pg_advisory_xact_lock key of the outbox's claims
_unsent = outbox.c.sent_at.is_(None)
_others = outbox.alias("held")
_held_before = (  # an earlier unsent call of the same chat, held by a sender's live lease
    select(literal(1))
    .where(
        _others.c.sent_at.is_(None),
        _others.c.chat_id == outbox.c.chat_id,
        _others.c.id < outbox.c.id,
        _others.c.claimed_until >= bindparam("now"),
    )
    .exists()
)
_free = or_(outbox.c.claimed_by.is_(None), outbox.c.claimed_until < bindparam("now"))
_mine = and_(outbox.c.claimed_by == bindparam("holder"), outbox.c.claimed_until >= bindparam("now"))
_CLAIM = (
    update(outbox)
    .where(
        outbox.c.id.in_(
            select(outbox.c.id)
            .where(_unsent, _free, ~_held_before)
            .order_by(outbox.c.id)
            .limit(bindparam("limit"))
            .scalar_subquery()
        )
    )
    .values(claimed_by=bindparam("holder"), claimed_until=bindparam("until"))
    .returning(*outbox.c)
)
_WAITING = (  # of these chats, those with an unsent call the sender does not hold
    select(outbox.c.chat_id)
    .distinct()
    .where(_unsent, ~_mine, outbox.c.chat_id.in_(bindparam("chats", expanding=True)))
)
_ADD = Upsert(outbox, lambda stmt: stmt.on_conflict_do_nothing().returning(*outbox.c))
_DONE = update(outbox).where(outbox.c.id == bindparam("call_id"))
_UNSENT = select(func.count()).select_from(outbox).where(_unsent)
_LOCK_COLUMNS = ("locktype", "classid", "objid", "objsubid", "granted", "database")
_locks = sa.table("pg_locks", *map(sa.column, _LOCK_COLUMNS))
_here = sa.table("pg_database", sa.column("oid"), sa.column("datname"))
_ALIVE = select(  # the bigint keys of the session advisory locks held in this database
    _locks.c.classid.cast(sa.BigInteger) * 2**32 + _locks.c.objid.cast(sa.BigInteger)
).where(
    _locks.c.locktype == "advisory",
    _locks.c.objsubid == 1,
    _locks.c.granted == sa.true(),
    _locks.c.database
    == select(_here.c.oid).where(_here.c.datname == func.current_database()).scalar_subquery(),
)


def _one_at_a_time(db: Connection) -> None:
    """PostgreSQL: the outbox's writes wait for each other (SQLite has one writer anyway)."""
    if db.dialect.name == "postgresql":
        db.execute(select(func.pg_advisory_xact_lock(OUTBOX_LOCK)))


def add(
    db: Connection,
    update_id: int,
    calls: Sequence[tuple[int | None, str, dict[str, Any]]],
    *,
    holder: int,
    lease: timedelta,
) -> list[OutboxRow]:
    """An update's calls (chat, method, payload), in order; a redelivered update's calls,
    already written, are not written again. Returns those written now: held by `holder`, to
    send them itself, but for those of a chat that has calls waiting, and all of them when
    `holder` is not alive on PostgreSQL (its session lost): left for `claim`."""
    if not calls:
        return []
    chats = [chat for chat in {chat for chat, _, _ in calls} if chat is not None]
    held = db.dialect.name != "postgresql" or holder in alive(db)  # under the outbox's lock
    now = utcnow()
    asked = {"chats": chats, "holder": holder, "now": now}
    waiting = set(db.scalars(_WAITING, asked)) if chats and held else set()
    until = now + lease
    rows = db.execute(
        _ADD.of(db),
        [
            {
                "update_id": update_id,
                "seq": seq,
                "chat_id": chat,
                "method": method,
                "payload": orjson.dumps(payload).decode(),
                "claimed_by": holder if held and chat not in waiting else None,
                "claimed_until": until if held and chat not in waiting else None,
            }
            for seq, (chat, method, payload) in enumerate(calls)
        ],
    )
    return sorted((shaped(OutboxRow, outbox, row) for row in rows), key=_id)


def claim(db: Connection, *, holder: int, lease: timedelta, limit: int) -> list[OutboxRow]:
    """Up to `limit` unsent calls, oldest first, held by `holder` for `lease`: those nobody
    holds (or whose lease ran out), but never a chat's call while an earlier one of the chat
    is held."""
    _one_at_a_time(db)
    now = utcnow()
    params = {"holder": holder, "now": now, "until": now + lease, "limit": limit}
    return sorted((shaped(OutboxRow, outbox, row) for row in db.execute(_CLAIM, params)), key=_id)


def present(db: Connection, holder: int) -> None:
    """PostgreSQL: `holder` is alive while `db`'s session lasts (an advisory lock of its own)."""
    db.execute(select(func.pg_advisory_lock(holder)))


def alive(db: Connection) -> set[int]:
    """PostgreSQL: the senders alive now, those whose session holds their lock (`present`).
    Read under the outbox's lock, so a sender that takes its lock after this has claimed
    nothing before the transaction ends: what a dead sender holds is judged on a fresh list."""
    _one_at_a_time(db)
    return set(db.scalars(_ALIVE))


def started(db: Connection) -> datetime:
    """PostgreSQL: when the server started (a sender's lock before that went with it)."""
    found: datetime = db.execute(select(func.pg_postmaster_start_time())).scalar_one()
    return found


def take_over(
    db: Connection, living: Collection[int], leased_after: datetime | None = None
) -> None:
    """Every unsent call held by a sender not in `living` (a dead process's) becomes free;
    with `leased_after`, only if its lease ends after it (PostgreSQL: claimed since the server
    started; an earlier lock went with a restart, not with its sender)."""
    _one_at_a_time(db)
    gone = and_(_unsent, outbox.c.claimed_by.is_not(None), outbox.c.claimed_by.not_in(living))
    if leased_after is not None:
        gone = and_(gone, outbox.c.claimed_until > leased_after)
    db.execute(update(outbox).where(gone).values(claimed_by=None, claimed_until=None))


def payload(row: OutboxRow) -> dict[str, Any]:
    """A call's parameters and files, as `add` stored them."""
    found: dict[str, Any] = orjson.loads(row.payload)
    return found


def done(db: Connection, outcomes: Sequence[tuple[int, str | None]]) -> None:
    """Calls Telegram accepted (error None) or refused for good (the error)."""
    if outcomes:
        now = utcnow()
        db.execute(
            _DONE,
            [
                {"call_id": id_, "sent_at": now, "error": error, "claimed_until": None}
                for id_, error in outcomes
            ],
        )


def release(db: Connection, ids: Sequence[int]) -> None:
    """Calls to try again later (Telegram unreachable): free for any sender."""
    if ids:
        db.execute(
            update(outbox)
            .where(outbox.c.id.in_(list(ids)))
            .values(claimed_by=None, claimed_until=None)
        )


def prune(db: Connection, before: datetime) -> None:
    """Forget calls sent before `before`."""
    db.execute(delete(outbox).where(outbox.c.sent_at.is_not(None), outbox.c.created_at < before))


def unsent(db: Connection) -> int:
    """How many calls wait (tests, health)."""
    return int(db.scalar(_UNSENT) or 0)


def _id(row: OutboxRow) -> int:
    return row.id
