"""The Table page's totals of this sitting: the night's card as /summary draws it
(`service.cards.night`: every hand and transfer since play last paused for six hours, all tables
and games together), so the page and the card never differ: the hands of every game, each
player's net per game and, with a stake set, the money the card shows. Its words are plain
text (the page shows them as text; `Renderer._` writes HTML)."""

from __future__ import annotations

from html import unescape
from typing import Any

from bot.i18n import N_, Gettext
from bot.presentation.numbers import fmt
from scoring.games import Unit, free_name
from service.replies import Card

#: A game's short name, as the card's columns say it (`bot.presentation.card.GAME_SHORT`).
GAME = {Unit.MAHJONG: N_("Mahjong"), Unit.K510: N_("510K"), Unit.FREE: N_("Free")}
HANDS = N_("{n} hand(s)")


def game_title(_: Gettext, unit: str) -> str:
    """`Mahjong`, `510K`, a free game's name."""
    return free_name(unit) or unescape(_(GAME[Unit.of(unit)]))


def totals(_: Gettext, card: Card | None, seats: tuple[str | None, ...]) -> dict[str, Any] | None:
    """`{"hands", "games": [{"title", "hands"}], "columns", "money", "rows"}`, a row per player
    of the card in its order (`{"name", "seated", "amounts", "money"}`, an amount per game of
    `columns`, None where the player did not play it); None when the night has nothing."""
    if card is None or not card.lines:
        return None
    money = card.stake is not None and any(line.money is not None for line in card.lines)
    seated = {name for name in seats if name}
    rows = []
    for line in card.lines:
        nets = dict(line.nets)
        amounts = [fmt(nets[u], signed=True) if u in nets else None for u in card.units]
        cash = fmt(line.money, signed=True) if money and line.money is not None else None
        rows.append(
            {"name": line.name, "seated": line.name in seated, "amounts": amounts, "money": cash}
        )
    return {
        "hands": sum(n for _unit, n in card.hands),
        "games": [
            {"title": game_title(_, unit), "hands": unescape(_(HANDS, n=n))}
            for unit, n in card.hands
        ],
        "columns": [game_title(_, unit) for unit in card.units],
        "money": money,
        "rows": rows,
    }
