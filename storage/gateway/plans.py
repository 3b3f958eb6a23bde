"""The games arranged with /yue and the answers to their polls. A reminder is claimed by the
update that marks it sent (`claim_reminder`): of two workers, or a worker before and after a
restart, one sends it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.engine import Connection

from storage.gateway import Upsert, every, first, shaped
from storage.models import PlanAnswerRow, PlanRow, plan, plan_answer

_ADD = insert(plan).returning(*plan.c)
_BY_ID = select(plan).where(plan.c.id == bindparam("plan_id"))
_BY_POLL = select(plan).where(plan.c.poll_id == bindparam("poll_id"))
_CHANGE = update(plan).where(plan.c.id == bindparam("plan_id"))
_UPCOMING = (
    select(plan)
    .where(
        plan.c.chat_id == bindparam("chat_id"),
        plan.c.thread_id == bindparam("thread_id"),
        plan.c.cancelled_at.is_(None),
        plan.c.at > bindparam("now"),
    )
    .order_by(plan.c.at, plan.c.id)
)
_DUE = (
    select(plan.c.id, plan.c.chat_id)
    .where(
        plan.c.reminded_at.is_(None),
        plan.c.cancelled_at.is_(None),
        plan.c.at <= bindparam("until"),
        plan.c.at > bindparam("now"),
    )
    .order_by(plan.c.at, plan.c.id)
)
_CLAIM = (
    update(plan)
    .where(plan.c.id == bindparam("plan_id"), plan.c.reminded_at.is_(None))
    .values(reminded_at=bindparam("when"))
)
_FULL = (
    update(plan)
    .where(plan.c.id == bindparam("plan_id"), plan.c.full_at.is_(None))
    .values(full_at=bindparam("when"))
)
_ANSWER = Upsert(
    plan_answer,
    lambda stmt: stmt.on_conflict_do_update(
        index_elements=[plan_answer.c.plan_id, plan_answer.c.user_id],
        set_={
            "name": stmt.excluded.name,
            "username": stmt.excluded.username,
            "coming": stmt.excluded.coming,
            "answered_at": stmt.excluded.answered_at,
        },
    ),
)
_ANSWERS = (
    select(plan_answer)
    .where(plan_answer.c.plan_id.in_(bindparam("ids", expanding=True)))
    .order_by(plan_answer.c.answered_at, plan_answer.c.user_id)
)


def add_plan(
    db: Connection,
    *,
    chat_id: int,
    thread_id: int,
    at: datetime,
    game: str,
    seats: int,
    created_by: int | None,
    created_by_name: str,
    now: datetime,
) -> PlanRow:
    values = {
        "chat_id": chat_id,
        "thread_id": thread_id,
        "at": at,
        "game": game,
        "seats": seats,
        "created_by": created_by,
        "created_by_name": created_by_name,
        "created_at": now,
    }
    return shaped(PlanRow, plan, db.execute(_ADD, values).one())


def plan_by_id(db: Connection, plan_id: int) -> PlanRow | None:
    return first(PlanRow, db.execute(_BY_ID, {"plan_id": plan_id}))


def plan_by_poll(db: Connection, poll_id: str) -> PlanRow | None:
    return first(PlanRow, db.execute(_BY_POLL, {"poll_id": poll_id}))


def set_poll(db: Connection, plan_id: int, poll_id: str, message_id: int) -> None:
    db.execute(_CHANGE, {"plan_id": plan_id, "poll_id": poll_id, "message_id": message_id})


def cancel(db: Connection, plan_id: int, when: datetime) -> None:
    db.execute(_CHANGE, {"plan_id": plan_id, "cancelled_at": when})


def upcoming(db: Connection, chat_id: int, thread_id: int, now: datetime) -> list[PlanRow]:
    """The chat's (or topic's) games arranged and not called off, still to come, soonest first."""
    params = {"chat_id": chat_id, "thread_id": thread_id, "now": now}
    return every(PlanRow, db.execute(_UPCOMING, params))


def due(db: Connection, now: datetime, lead: timedelta) -> list[tuple[int, int]]:
    """(plan, chat) of the games to remind now: starting within `lead`, not reminded yet."""
    rows = db.execute(_DUE, {"now": now, "until": now + lead})
    return [(int(pid), int(chat_id)) for pid, chat_id in rows]


def claim_reminder(db: Connection, plan_id: int, when: datetime) -> bool:
    """Mark the plan's reminder sent; False if another transaction did first."""
    return db.execute(_CLAIM, {"plan_id": plan_id, "when": when}).rowcount == 1


def claim_full(db: Connection, plan_id: int, when: datetime) -> bool:
    """Mark "the table is full" said; False if it was already."""
    return db.execute(_FULL, {"plan_id": plan_id, "when": when}).rowcount == 1


def answer(
    db: Connection,
    plan_id: int,
    *,
    user_id: int,
    name: str,
    username: str | None,
    coming: bool,
    when: datetime,
) -> None:
    """A member's answer to the poll (their last one counts)."""
    row = {
        "plan_id": plan_id,
        "user_id": user_id,
        "name": name,
        "username": username,
        "coming": coming,
        "answered_at": when,
    }
    db.execute(_ANSWER.of(db), [row])


def answers(db: Connection, plan_ids: Sequence[int]) -> dict[int, list[PlanAnswerRow]]:
    """The answers to each plan's poll, in the order they were given."""
    out: dict[int, list[PlanAnswerRow]] = {pid: [] for pid in plan_ids}
    if plan_ids:
        for row in every(PlanAnswerRow, db.execute(_ANSWERS, {"ids": list(plan_ids)})):
            out[row.plan_id].append(row)
    return out
