"""Read-only views of a season: /standings, /history, /seasons, /rules (/settle: settle.py)."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from sqlalchemy.engine import Connection

from scoring.games import EventKind, Game, Unit, is_points
from service import edit
from service.errors import N_, ServiceError
from service.k510 import current_marathon, progress
from service.ledger import hand_views, player_names
from service.replies import (
    HistoryView,
    Progress,
    RulesView,
    SeasonLine,
    SeasonsView,
    StandingsView,
)
from service.requests import History, Rules, Standings
from service.squaring import own_stakes
from storage.gateway import chats, tables
from storage.gateway import ledger as book
from storage.models import SeasonRow


def season_for(db: Connection, chat_id: int, number: int | None) -> SeasonRow:
    if number is None:
        season = chats.current_season(db, chat_id)
        if season is None:
            raise ServiceError(N_("Nothing has been recorded in this chat yet."))
        return season
    season = chats.season_by_number(db, chat_id, number)
    if season is None:
        raise ServiceError(
            N_("There is no season {n}. See /seasons."), usage=N_("/standings [season]"), n=number
        )
    return season


def balances_by_unit(db: Connection, season: SeasonRow) -> dict[str, list[tuple[str, Fraction]]]:
    rows = book.balances(db, season.id)
    names = player_names(db, [b.player_id for b in rows])
    out: dict[str, list[tuple[str, Fraction]]] = defaultdict(list)
    for b in rows:
        if is_points(b.unit):  # a fee's money is not a game's points
            out[b.unit].append((names[b.player_id], b.amount))
    for lines in out.values():
        lines.sort(key=lambda line: (-line[1], line[0].casefold()))
    return out


def standings(db: Connection, chat_id: int, thread_id: int, req: Standings) -> StandingsView:
    season = season_for(db, chat_id, req.season)
    by_unit = balances_by_unit(db, season)
    sections = tuple((u, tuple(by_unit[u])) for u in sorted(by_unit, key=Unit.order))
    return StandingsView(
        season=season.number,
        archived=season.archived_at is not None,
        sections=sections,
        progress=_marathon_progress(db, chat_id, thread_id, season)
        if season.archived_at is None
        else None,
    )


def _marathon_progress(
    db: Connection, chat_id: int, thread_id: int, season: SeasonRow
) -> Progress | None:
    table = tables.open_table(db, chat_id, thread_id)
    if table is None or not table.marathon or table.season_id != season.id:
        return None
    last = book.last_live_event(db, table.id, season.id, (EventKind.HAND,))
    state = current_marathon(last.data if last is not None else None, table.seats).state
    if state is None:
        return None
    found = player_names(db, [pid for pid in table.seats if pid])
    names = [found.get(pid, "—") for pid in table.seats]  # a seat left free: —
    if len(names) != state.players:
        return None
    return progress(state, names)


def history(db: Connection, chat_id: int, req: History, thread_id: int = 0) -> HistoryView:
    season = season_for(db, chat_id, req.season)
    events = list(reversed(book.hands(db, season.id, limit=req.n)))
    hands = tuple(hand_views(db, events))
    number = req.n if req.versions is None else req.versions
    versions = edit.versions_of(db, season.id, number, thread_id)
    zone = chat_zone(db, chat_id)
    return HistoryView(season=season.number, hands=hands, tz=zone, versions=versions)


def chat_zone(db: Connection, chat_id: int) -> str:
    """The chat's time zone (/set tz), UTC for a chat not seen yet."""
    chat = chats.get_chat(db, chat_id)
    return "UTC" if chat is None else chat.tz


def seasons(db: Connection, chat_id: int) -> SeasonsView:
    lines = [
        SeasonLine(number=s.number, opened_at=s.opened_at, archived_at=s.archived_at, hands=n)
        for s, n in chats.seasons_with_hands(db, chat_id)
    ]
    return SeasonsView(seasons=tuple(lines))


def rules(db: Connection, chat_id: int, thread_id: int, req: Rules) -> RulesView:
    chat = chats.get_chat(db, chat_id)  # None: a chat that never wrote, on the defaults
    table = tables.open_table(db, chat_id, thread_id)
    return RulesView(
        game=Game(table.game).value if table else None,
        sisuang=table.sisuang if table else bool(chat and chat.sisuang),
        zerosum=table.zerosum if table else bool(chat and chat.zerosum),
        stake=chat.stake if chat else None,
        stakes=tuple(own_stakes(chat)) if chat else (),
    )
