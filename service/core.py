"""The service: one entry point that runs each use case in one transaction.

Writes lock the chat's row, claim the update id (a redelivered update changes nothing) and
commit the change with it; reads use a consistent snapshot. Nothing here knows Telegram.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy.engine import Engine

from scoring.games import EventKind
from service import (
    admin,
    edit,
    fees,
    free,
    guest,
    identity,
    k510,
    ledger,
    mahjong,
    people,
    plans,
    repeats,
    sittings,
    stakes,
    tables,
)
from service.app import AppAccess
from service.context import Actor, Ctx
from service.errors import N_
from service.language import keep_first, of_telegram, shown
from service.looks import look
from service.names import clean_title
from service.replies import Info, PlanReminder, Recorded, Reply, SittingClosed
from service.requests import (
    Again,
    Answered,
    Arrange,
    CancelPlan,
    Claim,
    Edit,
    Fee,
    Gang,
    GuestRound,
    Hu,
    IAm,
    Join,
    Leave,
    Link,
    Liuju,
    Merge,
    NewTable,
    Pay,
    Plans,
    PollPosted,
    PollVote,
    Rename,
    Report,
    Request,
    Reset,
    Score,
    Seats,
    SetDealer,
    SetOption,
    SetStake,
    Sub,
    Undo,
    Unlink,
)
from service.unit import Tx
from storage.gateway import chat_move, chats
from storage.gateway import ledger as book
from storage.gateway import plans as plan_book
from storage.unit_of_work import UnitOfWork

WRITES: dict[type[Any], Callable[[Tx, Any], Reply]] = {
    NewTable: tables.new_table,
    Join: tables.join,
    Seats: tables.seats,
    SetDealer: tables.set_dealer,
    Link: tables.link,
    Unlink: identity.unlink,
    Claim: identity.claim,
    Sub: people.sub,
    Leave: people.leave,
    IAm: people.iam,
    Rename: people.rename,
    Merge: people.merge,
    Gang: mahjong.gang,
    Hu: mahjong.hu,
    Liuju: mahjong.liuju,
    Report: k510.report,
    Score: free.score,
    Pay: free.pay,
    Fee: fees.fee,
    Arrange: plans.arrange,
    CancelPlan: plans.cancel,
    PollPosted: plans.posted,
    PollVote: plans.vote,
    Undo: edit.undo,
    Edit: edit.edit,
    Reset: admin.reset,
    SetOption: admin.set_option,
    SetStake: stakes.set_stake,
}


def again(tx: Tx, req: Again) -> Reply:
    """[Record again]: the content of the record the two-minute rule's question named,
    recorded once more at the open table, as typed then (its command text)."""
    event = repeats.check_again(tx, req)
    request = repeats.request_of(event)
    tx.again = True
    tx.ctx = replace(tx.ctx, text=event.text)
    return WRITES[type(request)](tx, request)


def answered(tx: Tx, req: Answered) -> Reply:
    """[Replace #N] / [Record both] under a near repeat's question: its content recorded, as
    typed then. Replace corrects #N in place (`service.edit`: it keeps its number, its version
    before is kept); Record both records it as a new one."""
    event, request, text = repeats.near_of(tx, req)
    if req.replace and event.undone_by is None:
        return edit.correct(tx, event, request, text)
    tx.again = True
    tx.ctx = replace(tx.ctx, text=text)
    return WRITES[type(request)](tx, request)


#: What plays at the open table: a table nobody closed closes itself before it
#: (`service.sittings`), and it plays at the new sitting's table.
AT_THE_TABLE = (Hu, Gang, Liuju, Report, Score, Pay, Fee, Join, Seats, SetDealer, Sub, Leave)

WRITES[Again] = again
WRITES[Answered] = answered
WRITES[GuestRound] = guest.guest_round


@dataclass(frozen=True)
class Answer:
    """A reply and the language it is in (`service.language.shown`), read in the same
    transaction (after the change, so `/set lang` answers in the new language)."""

    reply: Reply
    lang: str
    notice: SittingClosed | None = None  # sent after the reply: a table nobody closed closed


class Service:
    """The use cases behind one entry point: a write runs in the unit of work (one transaction,
    the chat locked, the update claimed), a read in a snapshot; from the event loop, both in a
    worker thread (`perform`)."""

    def __init__(self, engine: Engine, now: Callable[[], datetime] = book.now) -> None:
        self.engine = engine
        self.now = now  # the clock a table nobody closed is measured by (a test's own)
        self.uow = UnitOfWork(engine)
        self.app = AppAccess(self.uow)  # the Mini App's: its links, its live mark, its screens

    def execute(self, ctx: Ctx, request: Request) -> Reply:
        """Run one request; raises ServiceError (nothing written) for bad input."""
        return self.answer(ctx, request).reply

    def answer(self, ctx: Ctx, request: Request) -> Answer:
        """`execute`, with the chat's language for rendering the reply."""
        use_case = WRITES.get(type(request))
        if use_case is not None:
            return self._write(ctx, request, use_case)
        return self._read(ctx, request)

    async def perform(self, ctx: Ctx, request: Request) -> Answer:
        """`answer`, awaited from the event loop (in a worker thread: the database blocks)."""
        return await asyncio.to_thread(self.answer, ctx, request)

    async def close(self) -> None:
        """Let go of the database's connections (the bot is stopping)."""
        await asyncio.to_thread(self.engine.dispose)

    def language(self, chat_id: int, telegram_code: str | None = None) -> str:
        """The language of a reply in chat `chat_id` to a sender whose Telegram language is
        `telegram_code`, where no request runs (a refusal, a button's alert): only a read, so a
        refused command keeps nothing, not even the chat's first language."""
        with self.uow.read() as db:
            chat = chats.get_chat(db, chat_id)
        return shown(chat.lang if chat is not None else None, telegram_code)

    def move_chat(self, old_id: int, new_id: int) -> str:
        """Group → supergroup migration: the chat's records follow it to the new id, merged
        with any the new id has already (see `storage.gateway.chat_move`)."""
        with self.uow.transaction() as db:
            return chat_move.move_chat(db, old_id, new_id)

    def try_out(self, ctx: Ctx, request: Request) -> Answer:
        """A write run as `answer` would, then rolled back: its reply, or its `ServiceError`
        (the Mini App checks each tap with it). Nothing is kept."""
        use_case, ctx = WRITES[type(request)], replace(ctx, update_id=None)
        with self.uow.chat(ctx.chat_id, ctx.thread_id, keep=False, make=self._tx(ctx)) as tx:
            return self._apply(tx, request, use_case)

    def _write(self, ctx: Ctx, request: Request, use_case: Callable[[Tx, Any], Reply]) -> Answer:
        chat, thread, update = ctx.chat_id, ctx.thread_id, ctx.update_id
        if isinstance(request, Again | Answered) and update is not None:
            update = repeats.answer_key(request)  # one answer records, whoever gives it
        with self.uow.chat(chat, thread, update, make=self._tx(ctx)) as tx:
            return self._apply(tx, request, use_case)

    @staticmethod
    def _tx(ctx: Ctx) -> Callable[..., Tx]:
        return functools.partial(Tx, ctx=ctx)

    def _apply(self, tx: Tx, request: Request, use_case: Callable[[Tx, Any], Reply]) -> Answer:
        ctx = tx.ctx
        tx.now = self.now()  # the chat locked: its records are stamped in their order
        first_lang = of_telegram(ctx.actor.language) if tx.chat.lang is None else None
        if first_lang:  # the chat's first kept command: its sender's language, kept
            tx.chat.lang = first_lang
        title = clean_title(ctx.chat_title)  # as names are: no override reorders it
        if (title and title != tx.chat.title) or first_lang:
            tx.chat.title = title or tx.chat.title  # /me names groups by it
            chats.save_settings(tx.db, tx.chat)
        if tx.earlier is not None:
            return Answer(self._repeat(tx, tx.earlier[0]), self._shown(tx))
        closed = None
        if isinstance(request, AT_THE_TABLE):
            closed = sittings.close_idle(tx, tx.now or book.now())
        try:
            reply = use_case(tx, request)
        except repeats.Repeat as question:  # the same as the last record: ask, record nothing
            return Answer(question.ask, self._shown(tx), closed)
        return Answer(reply, self._shown(tx), closed)

    @staticmethod
    def _shown(tx: Tx) -> str:
        return shown(tx.chat.lang, tx.ctx.actor.language)

    @staticmethod
    def _repeat(tx: Tx, event_id: int | None) -> Reply:
        event = book.event_by_id(tx.db, event_id) if event_id is not None else None
        if (
            event is None
            or event.kind in (EventKind.UNDO, EventKind.EDIT)
            or event.chat_id != tx.chat.id
        ):
            return Info(N_("Already done."))
        archived = None
        if event.season_id != tx.season.id:  # a /reset came in between: say where it went
            archived = chats.season_number(tx.db, event.season_id)
        view = ledger.hand_views(tx.db, [event])[0]
        return Recorded(view=view, repeated=True, archived_season=archived)

    def plan_chat(self, poll_id: str) -> tuple[int, int] | None:
        """The chat and topic of the /yue poll `poll_id` (a vote's update names no chat)."""
        with self.uow.read() as db:
            row = plan_book.plan_by_poll(db, poll_id)
        return None if row is None else (row.chat_id, row.thread_id)

    def due_reminders(self, now: datetime | None = None) -> list[PlanReminder]:
        """The reminders of the games starting within `plans.REMINDER_LEAD`, each claimed in
        its chat's transaction (marked sent: another worker, or this one after a restart, does
        not send it again). Sent by the caller after this returns: at most once."""
        now = now or self.now()
        with self.uow.read() as db:
            due = plan_book.due(db, now, plans.REMINDER_LEAD)
        out: list[PlanReminder] = []
        for chat_id, ids in plans.by_chat(due).items():
            ctx = Ctx(chat_id=chat_id, actor=Actor(None, ""))
            make = functools.partial(Tx, ctx=ctx, now=now)
            with self.uow.chat(chat_id, 0, None, make=make) as tx:
                tried = False  # the chat's table closes once, with its first reminder
                for plan_id in ids:
                    if not plan_book.claim_reminder(tx.db, plan_id, now):
                        continue
                    row = plan_book.plan_by_id(tx.db, plan_id)
                    assert row is not None
                    said = plan_book.answers(tx.db, [plan_id])[plan_id]
                    closed = None
                    if row.thread_id == 0 and not tried:  # the players gather again: a
                        tried, closed = True, sittings.close_idle(tx, now)  # table idle closes
                    out.append(
                        PlanReminder(
                            chat_id=row.chat_id,
                            thread_id=row.thread_id,
                            line=plans.plan_line(row, said),
                            mentions=plans.mentions(said),
                            tz=tx.chat.tz,
                            lang=shown(tx.chat.lang, None),
                            minutes=max(0, -int((now - row.at).total_seconds() // 60)),
                            closed=closed,
                        )
                    )
        return out

    def _read(self, ctx: Ctx, request: Request) -> Answer:
        with self.uow.read() as db:
            chat = chats.get_chat(db, ctx.chat_id)
            if isinstance(request, Plans):  # what is still to come: by the service's clock
                reply: Reply = plans.plans_view(db, ctx, self.now())
            else:
                reply = look(db, ctx, request)
            lang = chat.lang if chat else None
        if lang is None and chat is not None:  # a look sets a known chat's first language;
            # in a chat with no record yet it keeps nothing (`/help` before `/new`)
            lang = keep_first(self.uow, ctx)
        return Answer(reply, shown(lang, ctx.actor.language))
