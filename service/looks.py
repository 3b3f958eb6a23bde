"""The reads: each request that only looks (/standings, /history, /settle, /players, /me…)
answered from one snapshot of the database (`look`); `Service` runs them, and the Mini App's
screen runs several in one (`service.app`)."""

from __future__ import annotations

from dataclasses import replace

from sqlalchemy.engine import Connection

from service import cards, insight, mahjong, me, mine, rating, tables, views
from service import settle as settling
from service.context import Ctx
from service.errors import N_
from service.replies import HelpView, Info, MeElsewhere, Reply
from service.requests import (
    Chart,
    Export,
    Help,
    History,
    LastNight,
    Me,
    Mine,
    Rating,
    Request,
    Rules,
    SeasonCard,
    Seasons,
    Settle,
    ShowPlayers,
    Standings,
    Stats,
    Summary,
)
from service.unit import Tx
from storage.gateway import chats


def look(db: Connection, ctx: Ctx, request: Request) -> Reply:
    """The reply of a read request, from the snapshot `db`."""
    match request:
        case Standings():
            return views.standings(db, ctx.chat_id, ctx.thread_id, request)
        case History():
            return views.history(db, ctx.chat_id, request, ctx.thread_id)
        case Settle():
            return settling.settle(db, ctx, request)
        case Seasons():
            return views.seasons(db, ctx.chat_id)
        case Rules():
            return views.rules(db, ctx.chat_id, ctx.thread_id, request)
        case ShowPlayers():
            return _players(db, ctx, request)
        case Help():
            return HelpView()
        case Stats():
            return insight.stats(db, ctx.chat_id, request)
        case Chart():
            return insight.chart_data(db, ctx.chat_id, request)
        case Export():
            return insight.export_rows(db, ctx.chat_id, request)
        case Me():
            return _me(db, ctx)
        case Mine():
            return _mine(db, ctx)
        case Rating():
            return rating.rating_view(db, ctx.chat_id)
        case Summary():
            return cards.night(db, ctx.chat_id)
        case LastNight():
            return cards.night(db, ctx.chat_id, request.before)
        case SeasonCard():
            return cards.season_card(db, ctx.chat_id, request.season)
    raise TypeError(f"no use case for {type(request).__name__}")


def _me(db: Connection, ctx: Ctx) -> Reply:
    """/me: the record, in a group for the sender alone (an ephemeral message; the bot falls
    back to the private chat's button). An anonymous admin (no user) gets the button."""
    user = ctx.actor.user_id
    if user is None:
        return MeElsewhere()
    view = me.me(db, user)
    return view if user == ctx.chat_id else replace(view, in_group=True)


def _mine(db: Connection, ctx: Ctx) -> Reply:
    """/mine: the sender's account in this group, or in each group from the private chat."""
    user = ctx.actor.user_id
    if user is None:
        return MeElsewhere()
    return mine.mine(db, user, None if user == ctx.chat_id else ctx.chat_id)


def _players(db: Connection, ctx: Ctx, request: ShowPlayers) -> Reply:
    chat = chats.get_chat(db, ctx.chat_id)
    season = chats.current_season(db, ctx.chat_id) if chat else None
    if chat is None or season is None:
        return Info(N_("No table is open here. Open one first:"), {"usage": tables.USAGE_NEW})
    tx = Tx(db=db, chat=chat, season=season, ctx=ctx, table_fresh=False)
    view = tables.show_players(tx, request)
    return mahjong.with_kongs(tx, view)  # the /hu buttons offer nothing they contradict
