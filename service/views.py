"""Read-only views of a season: /standings, /history, /settle, /seasons, /rules."""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction

from sqlmodel import Session

from scoring.games import Game
from scoring.settle_up import settle_up
from service.errors import N_, ServiceError
from service.k510 import current_marathon, progress
from service.ledger import hand_views, player_names
from service.replies import (
    HistoryView,
    Progress,
    RulesView,
    SeasonLine,
    SeasonsView,
    SettleView,
    StandingsView,
)
from service.requests import History, Rules, Settle, Standings
from storage import repository as repo
from storage.models import Chat, Season

UNITS = ("mahjong", "510k")  # the order sections are shown in


def season_for(session: Session, chat_id: int, number: int | None) -> Season:
    if number is None:
        season = repo.current_season(session, chat_id)
        if season is None:
            raise ServiceError(N_("Nothing has been recorded in this chat yet."))
        return season
    season = repo.season_by_number(session, chat_id, number)
    if season is None:
        raise ServiceError(
            N_("There is no season {n}. See /seasons."), usage=N_("/standings [season]"), n=number
        )
    return season


def balances_by_unit(session: Session, season: Season) -> dict[str, list[tuple[str, Fraction]]]:
    rows = repo.balances(session, season.id or 0)
    names = player_names(session, [b.player_id for b in rows])
    out: dict[str, list[tuple[str, Fraction]]] = defaultdict(list)
    for b in rows:
        out[b.unit].append((names[b.player_id], b.amount))
    for lines in out.values():
        lines.sort(key=lambda line: (-line[1], line[0].casefold()))
    return out


def standings(session: Session, chat_id: int, thread_id: int, req: Standings) -> StandingsView:
    season = season_for(session, chat_id, req.season)
    by_unit = balances_by_unit(session, season)
    sections = tuple((u, tuple(by_unit[u])) for u in UNITS if u in by_unit)
    return StandingsView(
        season=season.number,
        archived=season.archived_at is not None,
        sections=sections,
        progress=_marathon_progress(session, chat_id, thread_id, season)
        if season.archived_at is None
        else None,
    )


def _marathon_progress(
    session: Session, chat_id: int, thread_id: int, season: Season
) -> Progress | None:
    table = repo.open_table(session, chat_id, thread_id)
    if table is None or not table.marathon or table.season_id != season.id:
        return None
    last = repo.last_live_event(
        session, table_id=table.id or 0, season_id=season.id or 0, kinds=("hand",)
    )
    _, state = current_marathon(last.data if last is not None else None)
    if state is None:
        return None
    found = player_names(session, table.seats)
    names = [found[pid] for pid in table.seats]
    return progress(state, names)


def history(session: Session, chat_id: int, req: History) -> HistoryView:
    season = season_for(session, chat_id, req.season)
    events = list(reversed(repo.hands(session, season.id or 0, limit=req.n)))
    return HistoryView(season=season.number, hands=tuple(hand_views(session, events)))


def settle(session: Session, chat_id: int, req: Settle) -> SettleView:
    """Fewest transfers per unit. 510K scores are not zero-sum: they settle around the average."""
    season = season_for(session, chat_id, req.season)
    chat = repo.get_chat(session, chat_id)
    sections = []
    for unit, lines in balances_by_unit(session, season).items():
        if unit not in UNITS:
            continue
        average = sum((a for _, a in lines), Fraction(0)) / len(lines)
        plan = settle_up({name: amount - average for name, amount in lines})
        sections.append((unit, tuple(plan)))
    sections.sort(key=lambda s: UNITS.index(s[0]))
    return SettleView(
        season=season.number, sections=tuple(sections), stake=chat.stake if chat else None
    )


def seasons(session: Session, chat_id: int) -> SeasonsView:
    lines = []
    for s in repo.seasons(session, chat_id):
        lines.append(
            SeasonLine(
                number=s.number,
                opened_at=s.opened_at,
                archived_at=s.archived_at,
                hands=repo.count_hands(session, s.id or 0),
            )
        )
    return SeasonsView(seasons=tuple(lines))


def rules(session: Session, chat_id: int, thread_id: int, req: Rules) -> RulesView:
    chat = repo.get_chat(session, chat_id) or Chat(id=chat_id)
    table = repo.open_table(session, chat_id, thread_id)
    return RulesView(
        game=Game(table.game).value if table else None,
        sisuang=table.sisuang if table else chat.sisuang,
        zerosum=table.zerosum if table else chat.zerosum,
        stake=chat.stake,
    )
