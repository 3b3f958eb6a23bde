"""The service: one entry point that runs each use case in one transaction.

Writes lock the chat's row, claim the update id (a redelivered update changes nothing) and
commit the change with it; reads use a consistent snapshot. Nothing here knows Telegram.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, Engine

from scoring.games import EventKind
from service import admin, free, glance, identity, insight, k510, ledger, mahjong, tables, views
from service.context import Ctx
from service.errors import N_
from service.replies import HandView, HelpView, Info, Recorded, Reply
from service.requests import (
    Chart,
    Claim,
    Export,
    Gang,
    Help,
    History,
    Hu,
    Join,
    Link,
    Liuju,
    NewTable,
    Pay,
    Report,
    Request,
    Reset,
    Rules,
    Score,
    Seasons,
    Seats,
    SetDealer,
    SetOption,
    Settle,
    ShowPlayers,
    Standings,
    Stats,
    Undo,
    Unlink,
)
from service.unit import Tx
from storage.db import read_transaction, write_transaction, writer
from storage.gateway import app_links, chat_move, chats
from storage.gateway import ledger as book
from storage.group_commit import Staged, Transactions, group_commit, pg_batches
from storage.read_ahead import ReadAhead
from storage.sql import Sql

WRITES: dict[type[Any], Callable[[Tx, Any], Reply]] = {
    NewTable: tables.new_table,
    Join: tables.join,
    Seats: tables.seats,
    SetDealer: tables.set_dealer,
    Link: tables.link,
    Unlink: identity.unlink,
    Claim: identity.claim,
    Gang: mahjong.gang,
    Hu: mahjong.hu,
    Liuju: mahjong.liuju,
    Report: k510.report,
    Score: free.score,
    Pay: free.pay,
    Undo: ledger.undo,
    Reset: admin.reset,
    SetOption: admin.set_option,
}


T = TypeVar("T")
KEEP_UPDATES = timedelta(days=2)  # redeliveries come within a day
PRUNE_EVERY = 3600.0  # seconds between prunings of old update ids, per process


def _kind(ctx: Ctx, request: Request) -> tuple[int, int, type[Request]]:
    """What a write's reads are remembered by (`storage.read_ahead`)."""
    return ctx.chat_id, ctx.thread_id, type(request)


@dataclass(frozen=True)
class Answer:
    """A reply and the chat's chosen language, read in the same transaction (after the change,
    so `/set lang` answers in the new language)."""

    reply: Reply
    lang: str | None


class Service:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._transactions = Transactions(engine)
        self._group_commit = group_commit(engine)
        self._batches = pg_batches(engine)
        self._read_ahead = ReadAhead()
        self._pruned_at: float | None = None

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
        """`answer`, awaited from the event loop: a write joins the group commit (SQLite) or
        the next batch (PostgreSQL; `storage.group_commit`); a read runs in a worker thread."""
        use_case = WRITES.get(type(request))
        if use_case is None:
            return await asyncio.to_thread(self._read, ctx, request)

        def work(conn: Connection) -> Answer:
            return self._apply(Sql(conn), ctx, request, use_case)

        def start(conn: Connection) -> Callable[[], Answer]:
            """The chat's lock and first reads, sent ahead of the batch's writes (`Staged`)."""
            db = Sql(conn)
            self._prune(db)
            ahead = self._read_ahead.reads(_kind(ctx, request))
            chats.send_lock_with_prologue(db, ctx.chat_id, ctx.thread_id, ctx.update_id, ahead)
            return lambda: self._apply(db, ctx, request, use_case)

        if self._batches is not None:
            return await self._batches.submit(ctx.chat_id, Staged(work, start))
        assert self._group_commit is not None  # the other database: SQLite
        return await self._group_commit.submit(work)

    async def write(self, work: Callable[[Sql], T]) -> T:
        """A write of the bot's own (its outbox), in its own transaction; on SQLite it joins
        the group commit (worker threads waiting for SQLite's lock would starve the commit)."""
        if self._group_commit is None:
            return await asyncio.to_thread(self._transactions.run, lambda conn: work(Sql(conn)))
        return await self._group_commit.submit(lambda conn: work(Sql(conn)))

    async def close(self) -> None:
        """Release the group commit's or the batches' connection once their last batch has
        ended (the bot is stopping)."""
        if self._group_commit is not None:
            await self._group_commit.close()
        if self._batches is not None:
            await self._batches.close()

    def chat_language(self, chat_id: int) -> str | None:
        """The chat's chosen language, if it set one."""
        with read_transaction(self.engine) as db:
            chat = chats.get_chat(db, chat_id)
            return chat.lang if chat else None

    def move_chat(self, old_id: int, new_id: int) -> str:
        """Group → supergroup migration: the chat's records follow it to the new id, merged
        with any the new id has already (see `storage.gateway.chat_move`)."""
        with write_transaction(self.engine) as db:
            return chat_move.move_chat(db, old_id, new_id)

    def try_out(self, ctx: Ctx, request: Request) -> Answer:
        """A write run as `answer` would, then rolled back: its reply, or its `ServiceError`
        (the Mini App checks each tap with it). Nothing is kept."""
        use_case = WRITES[type(request)]
        with writer(self.engine).connect() as conn:
            transaction = conn.begin()
            try:
                return self._apply(Sql(conn), replace(ctx, update_id=None), request, use_case)
            finally:
                transaction.rollback()

    def app_token(self, chat_id: int, thread_id: int) -> str:
        """The Mini App's token of a chat (and forum topic), made on first use."""
        with write_transaction(self.engine) as db:
            chats.lock_chat(db, chat_id)
            return app_links.token_for(db, chat_id, thread_id)

    def app_place(self, token: str) -> tuple[int, int] | None:
        """The (chat id, thread id) a Mini App token opens, or None."""
        with read_transaction(self.engine) as db:
            return app_links.place_of(db, token)

    def pending_kongs(self, chat_id: int, thread_id: int) -> tuple[HandView, ...]:
        """The open table's kongs of the current hand (`service.glance`)."""
        with read_transaction(self.engine) as db:
            return glance.pending_kongs(db, chat_id, thread_id)

    def _write(self, ctx: Ctx, request: Request, use_case: Callable[[Tx, Any], Reply]) -> Answer:
        return self._transactions.run(lambda conn: self._apply(Sql(conn), ctx, request, use_case))

    def _apply(
        self, db: Sql, ctx: Ctx, request: Request, use_case: Callable[[Tx, Any], Reply]
    ) -> Answer:
        self._prune(db)
        kind = _kind(ctx, request)
        chat, season, earlier, table = chat_move.lock_with_prologue(
            db, ctx.chat_id, ctx.thread_id, ctx.update_id, self._read_ahead.reads(kind)
        )
        tx = Tx(db, chat, season, ctx, table_read=table, table_was_read=True)
        if earlier is not None:
            return Answer(self._repeat(tx, earlier[0]), chat.lang)
        with db.folded():  # its writes go as one statement (PostgreSQL)
            try:
                reply = use_case(tx, request)
            finally:
                if db.pg:
                    self._read_ahead.learn(kind, db.reads())
            if ctx.update_id is not None:
                chats.claim_update(db, ctx.update_id, chat.id, tx.event_id)
        return Answer(reply, tx.chat.lang)

    def _prune(self, db: Sql) -> None:
        """Now and then (and first of all after a start), forget old update ids."""
        now = time.monotonic()
        if self._pruned_at is None or now - self._pruned_at > PRUNE_EVERY:
            chats.prune_updates(db, KEEP_UPDATES)
            self._pruned_at = now

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
        with read_transaction(self.engine) as db:
            chat = chats.get_chat(db, ctx.chat_id)
            reply = self._view(db, ctx, request)
            return Answer(reply, chat.lang if chat else None)

    def _view(self, db: Sql, ctx: Ctx, request: Request) -> Reply:
        match request:
            case Standings():
                return views.standings(db, ctx.chat_id, ctx.thread_id, request)
            case History():
                return views.history(db, ctx.chat_id, request)
            case Settle():
                return views.settle(db, ctx.chat_id, request)
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
        raise TypeError(f"no use case for {type(request).__name__}")

    @staticmethod
    def _players(db: Sql, ctx: Ctx, request: ShowPlayers) -> Reply:
        chat = chats.get_chat(db, ctx.chat_id)
        season = chats.current_season(db, ctx.chat_id) if chat else None
        if chat is None or season is None:
            return Info(N_("No table is open here. Open one first:"), {"usage": tables.USAGE_NEW})
        tx = Tx(db, chat, season, ctx)
        view = tables.show_players(tx, request)
        return mahjong.with_kongs(tx, view)  # the /hu buttons offer nothing they contradict
