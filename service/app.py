"""What the Mini App asks of the service beside the chat's requests, with typed answers: the
token of a chat's link, where a token leads, the chat's live mark, and a screen — everything
its pages show, read in one snapshot (`Service.app`). Recordings are the chat's requests."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from sqlalchemy.engine import Connection

from service import glance
from service.context import Ctx
from service.errors import ServiceError
from service.hand_views import HandView
from service.language import keep_first, shown
from service.looks import look
from service.replies import (
    Card,
    ChartData,
    HistoryView,
    Reply,
    SeasonsView,
    SettleView,
    StandingsView,
    TableView,
)
from service.requests import (
    Chart,
    History,
    Request,
    Seasons,
    Settle,
    ShowPlayers,
    Standings,
    Summary,
)
from storage.gateway import chats, live
from storage.unit_of_work import ChatWrite, UnitOfWork

T = TypeVar("T")


@dataclass(frozen=True)
class Place:
    """A chat and forum topic (0: none), as a Mini App link opens it."""

    chat_id: int
    thread_id: int = 0


@dataclass(frozen=True)
class Live:
    """Where a token leads and the chat's live mark there (it changes when the pages would)."""

    place: Place
    mark: str


@dataclass(frozen=True)
class Screen:
    """Everything the app's pages show, from one snapshot: the season's (or an archived
    season's) standings, chart, settle-up and last hands, the seasons, the open table with its
    pending kongs and the sitting's card, the live mark they go with, and their language. A
    view the chat has nothing for yet is None."""

    lang: str
    mark: str
    standings: StandingsView | None
    chart: ChartData | None
    settle: SettleView | None
    history: HistoryView | None
    seasons: SeasonsView | None
    table: TableView | None
    card: Card | None
    kongs: tuple[HandView, ...]


class AppAccess:
    """The Mini App's reads (and its link's token), each one transaction."""

    def __init__(self, uow: UnitOfWork) -> None:
        self.uow = uow

    def token(self, place: Place) -> str:
        """The Mini App's token of a chat and topic (its link's `startapp`), made on first use."""
        with self.uow.chat(place.chat_id, place.thread_id, make=ChatWrite) as work:
            return chats.app_token(work.db, work.chat.id, place.thread_id)

    def place(self, token: str) -> Place | None:
        """The chat and topic a token opens, or None."""
        with self.uow.read() as db:
            found = chats.app_place(db, token)
        return None if found is None else Place(*found)

    def mark(self, place: Place) -> str:
        """The live mark of a chat and topic: it changes when its pages would."""
        with self.uow.read() as db:
            return live.mark(db, place.chat_id, place.thread_id)

    def live(self, token: str) -> Live | None:
        """The chat and topic a token opens with their live mark (one read), or None."""
        with self.uow.read() as db:
            found = chats.app_place(db, token)
            return None if found is None else Live(Place(*found), live.mark(db, *found))

    def screen(self, ctx: Ctx, season: int | None, hands: int) -> Screen:
        """The screen of `ctx`'s chat and topic, for the season in play or season `season`,
        with its last `hands` hands: one snapshot (a look at a known chat keeps its first
        language, as every look does)."""
        with self.uow.read() as db:
            chat = chats.get_chat(db, ctx.chat_id)

            def seen(request: Request) -> Reply | None:
                return _seen(db, ctx, request)

            table = seen(ShowPlayers())
            lang = chat.lang if chat is not None else None
            screen = Screen(
                lang="",
                mark=live.mark(db, ctx.chat_id, ctx.thread_id),
                standings=_of(StandingsView, seen(Standings(season=season))),
                chart=_of(ChartData, seen(Chart(season=season))),
                settle=_of(SettleView, seen(Settle(season=season))),
                history=_of(HistoryView, seen(History(n=hands, season=season))),
                seasons=_of(SeasonsView, seen(Seasons())),
                table=_of(TableView, table),
                card=_of(Card, seen(Summary())) if table is not None else None,
                kongs=glance.pending_kongs(db, ctx.chat_id, ctx.thread_id),
            )
        if lang is None and chat is not None:
            lang = keep_first(self.uow, ctx)
        return replace(screen, lang=shown(lang, ctx.actor.language))


def _seen(db: Connection, ctx: Ctx, request: Request) -> Reply | None:
    """A view of the screen; None when the chat has nothing for it yet (its refusal)."""
    try:
        return look(db, ctx, request)
    except ServiceError:
        return None


def _of(kind: type[T], reply: Reply | None) -> T | None:
    return reply if isinstance(reply, kind) else None
