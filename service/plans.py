"""/yue: the next game arranged in the chat (issue 42, point 2). `/yue 周五 20:00 麻将` keeps the
game (`storage.gateway.plans`) and the bot posts a poll, not anonymous, so that each answer
reaches it (`vote`): who comes is kept, and when the game's number say yes the chat is told,
once, that the table is full. `REMINDER_LEAD` before the game, one worker claims the reminder
(`due_reminders`, in the chat's transaction) and the bot reminds those who said yes. `/yue`
lists what is arranged, `/yue cancel [n]` calls one off (whoever arranged it, or an admin).

Times are typed in the chat's time zone (`/set tz`) and kept in UTC (`resolve`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.engine import Connection

from service.context import Ctx
from service.errors import N_, Forbidden, ServiceError
from service.replies import PlanCancelled, PlanLine, PlanMade, PlanNoted, PlansView
from service.requests import Arrange, CancelPlan, PollPosted, PollVote, When
from service.unit import Tx
from storage.gateway import chats
from storage.gateway import plans as book
from storage.models import PlanAnswerRow, PlanRow

REMINDER_LEAD = timedelta(minutes=30)
MAX_AHEAD = timedelta(days=62)
MAX_PLANS = 10  # games arranged at once, per chat or topic
COMING = 0  # the poll's first option: "I come"
USAGE = "/yue 周五 20:00 麻将 · /yue 明天 8点 · /yue 20:00 · /yue fri 8pm · /yue cancel"
#: How many players make a table of a game named so (any other: four).
SEATS = {"510k3": 3, "斗地主": 3, "跑得快": 3, "三人": 3, "dou": 3}


def resolve(when: When, now: datetime, zone: str) -> datetime:
    """The moment `when` names, after `now`, in `zone`, as UTC. A time without a day is the
    next time it comes (today, else tomorrow); an hour from 1 to 11 without am/pm is p.m."""
    tz = ZoneInfo(zone)
    here = now.astimezone(tz)
    hour = when.hour
    if (when.half == "pm" and hour < 12) or (not when.half and 1 <= hour <= 11):
        hour += 12
    elif when.half == "am" and hour == 12:
        hour = 0
    at = time(hour, when.minute)
    today = here.date()
    if when.day == "date":
        month, day = divmod(when.value, 100)
        try:
            date = today.replace(month=month, day=day)
        except ValueError as err:
            raise ServiceError(
                N_("There is no such day: {m}-{d}."), usage=USAGE, m=month, d=day
            ) from err
        if datetime.combine(date, at, tz) <= here:
            date = date.replace(year=date.year + 1)
    elif when.day in ("today", "tomorrow", "after"):
        date = today + timedelta(days=("today", "tomorrow", "after").index(when.day))
    elif when.day == "weekday":
        ahead = (when.value - today.weekday()) % 7
        date = today + timedelta(days=ahead)
        if datetime.combine(date, at, tz) <= here:
            date += timedelta(days=7)
    else:
        date = today if datetime.combine(today, at, tz) > here else today + timedelta(days=1)
    return datetime.combine(date, at, tz).astimezone(UTC)


def arrange(tx: Tx, req: Arrange) -> PlanMade:
    """Keep the game arranged; the bot posts its poll next (`posted`)."""
    now = _now(tx)
    at = resolve(req.when, now, tx.chat.tz)
    if at <= now:
        raise ServiceError(N_("That time has passed already; give one still to come."), usage=USAGE)
    if at - now > MAX_AHEAD:
        raise ServiceError(
            N_("That is too far ahead: arrange a game within two months."), usage=USAGE
        )
    if len(book.upcoming(tx.db, tx.chat.id, tx.ctx.thread_id, now)) >= MAX_PLANS:
        raise ServiceError(
            N_("{n} games are arranged already: call one off first (/yue cancel)."), n=MAX_PLANS
        )
    game = req.game.strip()
    row = book.add_plan(
        tx.db,
        chat_id=tx.chat.id,
        thread_id=tx.ctx.thread_id,
        at=at,
        game=game,
        seats=SEATS.get(game.casefold(), 4),
        created_by=tx.ctx.actor.user_id,
        created_by_name=tx.ctx.actor.name,
        now=now,
    )
    return PlanMade(row.id, _line(1, row, []), tx.chat.tz, int(REMINDER_LEAD.total_seconds() // 60))


def posted(tx: Tx, req: PollPosted) -> PlanNoted:
    """The poll the bot posted for a game arranged: its ids kept, so that votes find it."""
    row = book.plan_by_id(tx.db, req.plan_id)
    if row is not None and row.chat_id == tx.chat.id:
        book.set_poll(tx.db, row.id, req.poll_id, req.message_id)
    return PlanNoted(tz=tx.chat.tz)


def vote(tx: Tx, req: PollVote) -> PlanNoted:
    """A member's answer (their last counts). When the game's number said yes, the table is
    full: said once (`full`)."""
    row = book.plan_by_poll(tx.db, req.poll_id)
    actor = tx.ctx.actor
    if row is None or row.chat_id != tx.chat.id or actor.user_id is None:
        return PlanNoted(tz=tx.chat.tz)
    now = _now(tx)
    coming = COMING in req.option_ids
    book.answer(
        tx.db,
        row.id,
        user_id=actor.user_id,
        name=actor.name,
        username=actor.username,
        coming=coming,
        when=now,
    )
    said = book.answers(tx.db, [row.id])[row.id]
    full = None
    yes = [a for a in said if a.coming]
    enough = coming and len(yes) >= row.seats and row.cancelled_at is None
    if enough and book.claim_full(tx.db, row.id, now):
        full = _line(1, row, said)
    return PlanNoted(full=full, tz=tx.chat.tz)


def plans_view(db: Connection, ctx: Ctx, now: datetime) -> PlansView:
    """`/yue`: the games arranged here, soonest first, with who comes."""
    chat = chats.get_chat(db, ctx.chat_id)
    zone = chat.tz if chat is not None else "UTC"
    rows = book.upcoming(db, ctx.chat_id, ctx.thread_id, now)
    said = book.answers(db, [r.id for r in rows])
    return PlansView(tuple(_line(i + 1, r, said[r.id]) for i, r in enumerate(rows)), zone)


def cancel(tx: Tx, req: CancelPlan) -> PlanCancelled:
    """Call off a game arranged: the next one, or the list's number `n`; by whoever arranged
    it, or an admin."""
    now = _now(tx)
    rows = book.upcoming(tx.db, tx.chat.id, tx.ctx.thread_id, now)
    if not rows:
        raise ServiceError(N_("No game is arranged here: arrange one with /yue."), usage=USAGE)
    n = req.number or 1
    if not 1 <= n <= len(rows):
        raise ServiceError(N_("There is no game {n} arranged: /yue lists them."), usage="/yue", n=n)
    row = rows[n - 1]
    if not tx.ctx.is_admin and row.created_by != tx.ctx.actor.user_id:
        raise Forbidden(N_("Only whoever arranged it, or a group admin, can call it off."))
    book.cancel(tx.db, row.id, now)
    said = book.answers(tx.db, [row.id])[row.id]
    return PlanCancelled(_line(n, row, said), tx.chat.tz)


def plan_line(row: PlanRow, said: Sequence[PlanAnswerRow]) -> PlanLine:
    """A game arranged as replies show it (the reminder's)."""
    return _line(1, row, said)


def _line(number: int, row: PlanRow, said: Sequence[PlanAnswerRow]) -> PlanLine:
    return PlanLine(
        number=number,
        at=row.at,
        game=row.game,
        seats=row.seats,
        by=row.created_by_name,
        coming=tuple(a.name for a in said if a.coming),
        not_coming=sum(1 for a in said if not a.coming),
    )


def _now(tx: Tx) -> datetime:
    return tx.now or datetime.now(UTC)


def mentions(said: Sequence[PlanAnswerRow]) -> tuple[tuple[int, str], ...]:
    """Those who said yes, to be reminded by name."""
    return tuple((a.user_id, a.name) for a in said if a.coming)


def by_chat(rows: Sequence[tuple[int, int]]) -> Mapping[int, list[int]]:
    """Plans due, grouped by chat (each chat's reminders claimed in its own transaction)."""
    out: dict[int, list[int]] = {}
    for plan_id, chat_id in rows:
        out.setdefault(chat_id, []).append(plan_id)
    return out
