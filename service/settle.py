"""/settle (per game, in points and at each game's stake) and /settle money (one list across
the games). Balances are squared as `service.squaring` says; stakes: `service.stakes`."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from scoring.games import Unit, is_points
from service.context import Ctx
from service.ledger import player_names
from service.replies import MoneyView, SettleView
from service.requests import Settle
from service.squaring import in_money, plan, squared, stake_of
from service.views import season_for
from storage.gateway import chats
from storage.gateway import ledger as book


def settle(db: Connection, ctx: Ctx, req: Settle) -> SettleView | MoneyView:
    """The fewest transfers that square the season, per game or (`req.money`) in money."""
    season = season_for(db, ctx.chat_id, req.season)
    chat = chats.get_chat(db, ctx.chat_id)
    rows = book.balances(db, season.id)
    by_unit = squared(rows)  # by player id: two players of one name are two
    names = player_names(db, list({row.player_id for row in rows}))
    units = sorted(filter(is_points, by_unit), key=Unit.order)  # fees: in money only
    archive = season.id if ctx.is_admin and season.archived_at is None else None
    uneven = tuple(u for u in units if any(row.par for row in rows if row.unit == u))
    if req.money:
        money = in_money(chat, by_unit, names)
        return MoneyView(
            season=season.number,
            transfers=plan(money.cents, names),
            games=money.games,
            left_out=money.left_out,
            rounded=money.rounded,
            archive=archive,
        )
    sections = tuple((unit, plan(by_unit[unit], names)) for unit in units)
    stakes = tuple((u, s) for u in units if (s := stake_of(chat, u)) is not None)
    return SettleView(
        season=season.number,
        sections=sections,
        stake=chat.stake if chat else None,
        stakes=stakes,
        squared=uneven,
        archive=archive,
    )
