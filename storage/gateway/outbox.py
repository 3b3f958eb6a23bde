"""The outbox: Bot API calls waiting to be sent, claimed by a sender for a while (a lease, so
several webhook workers share the work and a crashed one's calls are taken over)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from storage.rows import OutboxRow
from storage.sql import Sql, placeholders

FREE = "sent_at IS NULL AND (claimed_until IS NULL OR claimed_until < ?)"


def add(db: Sql, update_id: int, calls: Sequence[tuple[int | None, str, dict[str, Any]]]) -> None:
    """An update's calls (chat, method, payload), in order; a redelivered update's calls,
    already written, are not written again."""
    db.many(
        "INSERT INTO outbox (update_id, seq, chat_id, method, payload) VALUES (?, ?, ?, ?, ?)"
        " ON CONFLICT (update_id, seq) DO NOTHING",
        [
            (update_id, seq, chat, method, db.json_in(payload))
            for seq, (chat, method, payload) in enumerate(calls)
        ],
    )


def claim(db: Sql, lease: timedelta, limit: int) -> list[OutboxRow]:
    """Up to `limit` unsent calls nobody holds, oldest first, held for `lease`."""
    now = db.when(db.moment)
    until = db.when(db.moment + lease)
    skip_locked = " FOR UPDATE SKIP LOCKED" if db.pg else ""  # workers never wait on each other
    rows = db.rows(
        f"UPDATE outbox SET claimed_until = ? WHERE {FREE} AND id IN"
        f" (SELECT id FROM outbox WHERE {FREE} ORDER BY id LIMIT ?{skip_locked})"
        " RETURNING id, chat_id, method, payload",
        (until, now, now, limit),
    )
    found = [
        OutboxRow(id_, chat, method, db.json_out(payload)) for id_, chat, method, payload in rows
    ]
    return sorted(found, key=lambda row: row.id)


def done(db: Sql, outcomes: Sequence[tuple[int, str | None]]) -> None:
    """Calls Telegram accepted (error None) or refused for good (the error)."""
    db.many(
        "UPDATE outbox SET sent_at = ?, error = ?, claimed_until = NULL WHERE id = ?",
        [(db.stamp(), error, id_) for id_, error in outcomes],
    )


def release(db: Sql, ids: Sequence[int]) -> None:
    """Calls to try again later (Telegram unreachable)."""
    if ids:
        db.run(
            f"UPDATE outbox SET claimed_until = NULL WHERE id IN ({placeholders(len(ids))})",
            tuple(ids),
        )


def prune(db: Sql, older_than: timedelta) -> None:
    """Forget calls sent long ago."""
    db.run(
        "DELETE FROM outbox WHERE sent_at IS NOT NULL AND created_at < ?",
        (db.when(db.moment - older_than),),
    )


def unsent(db: Sql) -> int:
    """How many calls wait (tests, health)."""
    row = db.row("SELECT count(*) FROM outbox WHERE sent_at IS NULL")
    return int(row[0]) if row else 0
