"""The outbox: Bot API calls waiting to be sent, claimed by a sender for a while (a lease, so
several webhook workers share the work and a crashed one's calls are taken over)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import orjson
from sqlalchemy import bindparam, delete, func, or_, select, update
from sqlalchemy.engine import Connection

from storage.gateway import Upsert, shaped
from storage.models import OutboxRow, outbox, utcnow

_free = (
    outbox.c.sent_at.is_(None),
    or_(outbox.c.claimed_until.is_(None), outbox.c.claimed_until < bindparam("now")),
)
_ADD = Upsert(outbox, lambda stmt: stmt.on_conflict_do_nothing())
_DONE = update(outbox).where(outbox.c.id == bindparam("call_id"))
_UNSENT = select(func.count()).select_from(outbox).where(outbox.c.sent_at.is_(None))


def _claim(skip_locked: bool) -> Any:
    oldest = select(outbox.c.id).where(*_free).order_by(outbox.c.id).limit(bindparam("limit"))
    if skip_locked:  # workers never wait on each other
        oldest = oldest.with_for_update(skip_locked=True)
    return (
        update(outbox)
        .where(*_free, outbox.c.id.in_(oldest.scalar_subquery()))
        .values(claimed_until=bindparam("until"))
        .returning(*outbox.c)
    )


_CLAIM = {"sqlite": _claim(False), "postgresql": _claim(True)}


def add(
    db: Connection, update_id: int, calls: Sequence[tuple[int | None, str, dict[str, Any]]]
) -> None:
    """An update's calls (chat, method, payload), in order; a redelivered update's calls,
    already written, are not written again."""
    if calls:
        db.execute(
            _ADD.of(db),
            [
                {
                    "update_id": update_id,
                    "seq": seq,
                    "chat_id": chat,
                    "method": method,
                    "payload": orjson.dumps(payload).decode(),
                }
                for seq, (chat, method, payload) in enumerate(calls)
            ],
        )


def claim(db: Connection, lease: timedelta, limit: int) -> list[OutboxRow]:
    """Up to `limit` unsent calls nobody holds, oldest first, held for `lease`."""
    now = utcnow()
    rows = db.execute(_CLAIM[db.dialect.name], {"now": now, "until": now + lease, "limit": limit})
    return sorted((shaped(OutboxRow, outbox, row) for row in rows), key=lambda row: row.id)


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
    """Calls to try again later (Telegram unreachable)."""
    if ids:
        db.execute(update(outbox).where(outbox.c.id.in_(list(ids))).values(claimed_until=None))


def prune(db: Connection, before: datetime) -> None:
    """Forget calls sent before `before`."""
    db.execute(delete(outbox).where(outbox.c.sent_at.is_not(None), outbox.c.created_at < before))


def unsent(db: Connection) -> int:
    """How many calls wait (tests, health)."""
    return int(db.scalar(_UNSENT) or 0)
