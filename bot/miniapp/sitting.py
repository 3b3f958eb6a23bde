"""The Table page's totals of this sitting: each seated player's net since play last paused for
six hours, read from the night's card (/summary: `service.cards.night`), in the table's game
and, with a stake set, in money (510K squared per hand, as the card counts it)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from bot.presentation.numbers import fmt
from scoring.games import Game, free_unit
from service.replies import Card, TableView


def unit_of(table: TableView) -> str:
    """The unit the open table scores in."""
    game = Game(table.game)
    return free_unit(table.name) if game is Game.FREE else game.unit.value


def totals(card: Card | None, table: TableView) -> dict[str, Any] | None:
    """`{"hands", "money", "rows": [{"name", "amount", "money"}]}` for the seated players in
    seat order (0 for one who has not played this sitting); None when the sitting has no hand
    of this game or nobody is seated."""
    seated = [name for name in table.seats if name]
    unit = unit_of(table)
    hands = dict(card.hands).get(unit, 0) if card is not None else 0
    if card is None or not seated or not hands:
        return None
    lines = {line.name: line for line in card.lines}
    money = any(line.money is not None for line in card.lines)
    rows = []
    for name in seated:
        line = lines.get(name)
        net = dict(line.nets).get(unit, Fraction(0)) if line else Fraction(0)
        cash = line.money if line and line.money is not None else Fraction(0)
        rows.append(
            {
                "name": name,
                "amount": fmt(net, signed=True),
                "money": fmt(cash, signed=True) if money else None,
            }
        )
    return {"hands": hands, "money": money, "rows": rows}
