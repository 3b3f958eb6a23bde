"""/settle (per game, in points and at each game's stake) and /settle money (one list across
the games). Balances are squared as `service.squaring` says; stakes: `service.stakes`."""

from __future__ import annotations

from fractions import Fraction

from sqlalchemy.engine import Connection

from scoring.games import Unit
from scoring.settle_up import settle_up
from service.context import Ctx
from service.ledger import player_names
from service.replies import MoneyView, SettleView
from service.requests import Settle
from service.squaring import in_cents, squared, stake_of
from service.views import season_for
from storage.gateway import chats
from storage.gateway import ledger as book
from storage.models import ChatRow


def settle(db: Connection, ctx: Ctx, req: Settle) -> SettleView | MoneyView:
    """The fewest transfers that square the season, per game or (`req.money`) in money."""
    season = season_for(db, ctx.chat_id, req.season)
    chat = chats.get_chat(db, ctx.chat_id)
    rows = book.balances(db, season.id)
    by_unit = squared(rows)
    names = player_names(db, list({row.player_id for row in rows}))
    units = sorted(by_unit, key=Unit.order)  # in the order sections are shown
    archive = season.id if ctx.is_admin and season.archived_at is None else None
    uneven = tuple(u for u in units if any(row.par for row in rows if row.unit == u))
    if req.money:
        return _money(season.number, chat, by_unit, units, names, archive)
    sections = tuple(
        (unit, tuple(settle_up({names[pid]: v for pid, v in by_unit[unit].items()})))
        for unit in units
    )
    stakes = tuple((u, s) for u in units if (s := stake_of(chat, u)) is not None)
    return SettleView(
        season=season.number,
        sections=sections,
        stake=chat.stake if chat else None,
        stakes=stakes,
        squared=uneven,
        archive=archive,
    )


def _money(
    season: int,
    chat: ChatRow | None,
    by_unit: dict[str, dict[int, Fraction]],
    units: list[str],
    names: dict[int, str],
    archive: int | None,
) -> MoneyView:
    money: dict[str, Fraction] = {}
    games, left_out = [], []
    for unit in units:
        stake = stake_of(chat, unit)
        if stake is None:
            if any(by_unit[unit].values()):
                left_out.append(unit)
            continue
        games.append((unit, stake))
        for pid, points in by_unit[unit].items():
            money[names[pid]] = money.get(names[pid], Fraction(0)) + points * stake
    cents, rounded = in_cents(money, {name: name.casefold() for name in money})
    return MoneyView(
        season=season,
        transfers=tuple(settle_up(cents)),
        games=tuple(games),
        left_out=tuple(left_out),
        rounded=rounded,
        archive=archive,
    )
