"""The service: one entry point that runs each use case in one transaction.

Writes lock the chat's row, claim the update id (a redelivered update changes nothing) and
commit the change with it; reads use a consistent snapshot. Nothing here knows Telegram.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy.engine import Connection, Engine

from scoring.games import EventKind
from service import (
    admin,
    cards,
    free,
    glance,
    identity,
    insight,
    k510,
    ledger,
    mahjong,
    me,
    people,
    rating,
    repeats,
    stakes,
    tables,
    views,
)
from service import settle as settling
from service.context import Ctx
from service.errors import N_
from service.replies import HandView, HelpView, Info, MeElsewhere, Recorded, Reply
from service.requests import (
    Again,
    Chart,
    Claim,
    Export,
    Gang,
    Help,
    History,
    Hu,
    IAm,
    Join,
    Leave,
    Link,
    Liuju,
    Me,
    Merge,
    NewTable,
    Pay,
    Rating,
    Rename,
    Report,
    Request,
    Reset,
    Rules,
    Score,
    SeasonCard,
    Seasons,
    Seats,
    SetDealer,
    SetOption,
    SetStake,
    Settle,
    ShowPlayers,
    Standings,
    Stats,
    Sub,
    Summary,
    Undo,
    Unlink,
)
from service.unit import Tx
from storage.gateway import chat_move, chats, live
from storage.gateway import ledger as book
from storage.unit_of_work import ChatWrite, UnitOfWork

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
    Undo: ledger.undo,
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


WRITES[Again] = again


def language_of(telegram_code: str | None) -> str | None:
    """A Telegram language code as the chat's language (Chinese or English); None: none."""
    if not telegram_code:
        return None
    return "zh" if telegram_code.lower().startswith("zh") else "en"


@dataclass(frozen=True)
class Answer:
    """A reply and the chat's chosen language, read in the same transaction (after the change,
    so `/set lang` answers in the new language)."""

    reply: Reply
    lang: str | None


class Service:
    """The use cases behind one entry point: a write runs in the unit of work (one transaction,
    the chat locked, the update claimed), a read in a snapshot; from the event loop, both in a
    worker thread (`perform`)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.uow = UnitOfWork(engine)

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

    def chat_language(
        self, chat_id: int, thread_id: int = 0, sender_language: str | None = None
    ) -> str | None:
        """The chat's language: set by `/set lang`, or by its first command (the sender's
        Telegram language then, `sender_language`: kept from now on); None while neither."""
        with self.uow.read() as db:
            chat = chats.get_chat(db, chat_id)
            if chat is not None and chat.lang is not None:
                return chat.lang
        lang = language_of(sender_language)
        if lang is None:
            return None
        with self.uow.chat(chat_id, thread_id, make=ChatWrite) as work:
            if work.chat.lang is None:
                work.chat.lang = lang
                chats.save_settings(work.db, work.chat)
            return work.chat.lang

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

    def app_token(self, chat_id: int, thread_id: int) -> str:
        """The Mini App's token of a chat (and forum topic), made on first use."""
        with self.uow.chat(chat_id, thread_id, make=ChatWrite) as work:
            return chats.app_token(work.db, work.chat.id, thread_id)

    def app_place(self, token: str) -> tuple[int, int] | None:
        """The (chat id, thread id) a Mini App token opens, or None."""
        with self.uow.read() as db:
            return chats.app_place(db, token)

    def app_mark(self, chat_id: int, thread_id: int) -> str:
        """The Mini App's live mark of a chat and topic: it changes when its pages would."""
        with self.uow.read() as db:
            return live.mark(db, chat_id, thread_id)

    def app_live(self, token: str) -> tuple[int, int, str] | None:
        """The chat and topic a Mini App token opens and their live mark (one read), or None."""
        with self.uow.read() as db:
            found = chats.app_place(db, token)
            return None if found is None else (*found, live.mark(db, *found))

    def pending_kongs(self, chat_id: int, thread_id: int) -> tuple[HandView, ...]:
        """The open table's kongs of the current hand (`service.glance`)."""
        with self.uow.read() as db:
            return glance.pending_kongs(db, chat_id, thread_id)

    def _write(self, ctx: Ctx, request: Request, use_case: Callable[[Tx, Any], Reply]) -> Answer:
        chat, thread, update = ctx.chat_id, ctx.thread_id, ctx.update_id
        with self.uow.chat(chat, thread, update, make=self._tx(ctx)) as tx:
            return self._apply(tx, request, use_case)

    @staticmethod
    def _tx(ctx: Ctx) -> Callable[..., Tx]:
        return functools.partial(Tx, ctx=ctx)

    def _apply(self, tx: Tx, request: Request, use_case: Callable[[Tx, Any], Reply]) -> Answer:
        ctx = tx.ctx
        first_lang = language_of(ctx.actor.language) if tx.chat.lang is None else None
        if first_lang:  # the chat's first command: its language, kept (`chat_language`)
            tx.chat.lang = first_lang
        if (ctx.chat_title and ctx.chat_title != tx.chat.title) or first_lang:
            tx.chat.title = ctx.chat_title or tx.chat.title  # /me names groups by it
            chats.save_settings(tx.db, tx.chat)
        if tx.earlier is not None:
            return Answer(self._repeat(tx, tx.earlier[0]), tx.chat.lang)
        try:
            reply = use_case(tx, request)
        except repeats.Repeat as question:  # the same as the last record: ask, record nothing
            return Answer(question.ask, tx.chat.lang)
        return Answer(reply, tx.chat.lang)

    @staticmethod
    def _repeat(tx: Tx, event_id: int | None) -> Reply:
        event = book.event_by_id(tx.db, event_id) if event_id is not None else None
        if event is None or event.kind == EventKind.UNDO or event.chat_id != tx.chat.id:
            return Info(N_("Already done."))
        archived = None
        if event.season_id != tx.season.id:  # a /reset came in between: say where it went
            archived = chats.season_number(tx.db, event.season_id)
        view = ledger.hand_views(tx.db, [event])[0]
        return Recorded(view=view, repeated=True, archived_season=archived)

    def _read(self, ctx: Ctx, request: Request) -> Answer:
        with self.uow.read() as db:
            chat = chats.get_chat(db, ctx.chat_id)
            reply = self._view(db, ctx, request)
            lang = chat.lang if chat else None
        if lang is None and chat is not None:  # a look sets a known chat's first language;
            # in a chat with no record yet it keeps nothing (`/help` before `/new`)
            lang = self.chat_language(ctx.chat_id, ctx.thread_id, ctx.actor.language)
        return Answer(reply, lang)

    def _view(self, db: Connection, ctx: Ctx, request: Request) -> Reply:
        match request:
            case Standings():
                return views.standings(db, ctx.chat_id, ctx.thread_id, request)
            case History():
                return views.history(db, ctx.chat_id, request)
            case Settle():
                return settling.settle(db, ctx, request)
            case Seasons():
                return views.seasons(db, ctx.chat_id)
            case Rules():
                return views.rules(db, ctx.chat_id, ctx.thread_id, request)
            case ShowPlayers():
                return self._players(db, ctx, request)
            case Help():
                return HelpView()
            case Stats():
                return insight.stats(db, ctx.chat_id, request)
            case Chart():
                return insight.chart_data(db, ctx.chat_id, request)
            case Export():
                return insight.export_rows(db, ctx.chat_id, request)
            case Me():
                private = ctx.actor.user_id is not None and ctx.actor.user_id == ctx.chat_id
                return me.me(db, ctx.chat_id) if private else MeElsewhere()
            case Rating():
                return rating.rating_view(db, ctx.chat_id)
            case Summary():
                return cards.night(db, ctx.chat_id)
            case SeasonCard():
                return cards.season_card(db, ctx.chat_id, request.season)
        raise TypeError(f"no use case for {type(request).__name__}")

    @staticmethod
    def _players(db: Connection, ctx: Ctx, request: ShowPlayers) -> Reply:
        chat = chats.get_chat(db, ctx.chat_id)
        season = chats.current_season(db, ctx.chat_id) if chat else None
        if chat is None or season is None:
            return Info(N_("No table is open here. Open one first:"), {"usage": tables.USAGE_NEW})
        tx = Tx(db=db, chat=chat, season=season, ctx=ctx, table_fresh=False)
        view = tables.show_players(tx, request)
        return mahjong.with_kongs(tx, view)  # the /hu buttons offer nothing they contradict
