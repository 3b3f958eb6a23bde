"""The night's and the season's card in words: the games' short titles, who pays whom and how
the money is counted, its notes. The picture (`bot.presentation.card`) and the caption
(`bot.presentation.render_beyond`) say the same."""

from __future__ import annotations

from collections.abc import Callable

from bot.i18n import N_
from bot.presentation.numbers import fmt_stake, rounded
from scoring.games import Unit, fee_name, free_name, is_points
from service.replies import Card

GAME_SHORT = {
    Unit.MAHJONG: N_("Mahjong"),
    Unit.K510: N_("510K"),
    Unit.FREE: N_("Free"),
    Unit.MONEY: N_("Fees"),
}
HANDS_COUNTED = N_(
    "(A hand: each hand or round recorded and not undone; kongs and transfers are not hands.)"
)  # /summary, /chart and /export count hands so (`storage.gateway.ledger.live_hands`)
WHO_PAYS = N_("💸 Who pays whom")
IN_MONEY = N_("in money, stake {stake} per point")
IN_MONEY_EACH = N_("in money, each game at its stake: {stakes}")
IN_MONEY_FEES = N_("in money: the fees paid for others")
ROUNDED = N_("(Each player's money is rounded to the cent, so that it adds up.)")
LEFT_OUT = N_("Left out of the money, no stake: {games}.")
POINTS_ROUNDED = N_("(Points shown to two decimals; the exact values are kept.)")


def game_title(t: Callable[..., str], unit: str) -> str:
    """`Mahjong`, `510K`, a free game's name."""
    name = free_name(unit) or fee_name(unit)
    return name or t(GAME_SHORT[Unit.of(unit)])


def in_money(t: Callable[..., str], card: Card) -> str:
    """`in money, stake 0.5 per point`, or each game's stake where they differ."""
    if card.stake is not None:
        return t(IN_MONEY, stake=fmt_stake(card.stake))
    stakes = " · ".join(f"{game_title(t, u)} {fmt_stake(s)}" for u, s in card.games if is_points(u))
    return t(IN_MONEY_EACH, stakes=stakes) if stakes else t(IN_MONEY_FEES)


def notes(t: Callable[..., str], card: Card) -> list[str]:
    """The money's notes, as /settle money says them: rounded to the cent; games left out."""
    out = []
    if card.games and card.rounded:
        out.append(t(ROUNDED))
    if card.games and card.left_out:
        out.append(t(LEFT_OUT, games=" · ".join(game_title(t, u) for u in card.left_out)))
    if not card.games and any(rounded(a) != a for _u, plan in card.plan for *_n, a in plan):
        out.append(t(POINTS_ROUNDED))
    return out
