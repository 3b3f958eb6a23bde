"""The ledger's words: the games a table plays, the units they score in, the kinds of record."""

from __future__ import annotations

from enum import StrEnum


class Unit(StrEnum):
    """What a balance counts. Declared in the order sections are shown (standings, settle-up)."""

    MAHJONG = "mahjong"  # mahjong points
    K510 = "510k"  # 510K scores


class Game(StrEnum):
    MAHJONG = "mahjong"
    K510 = "510k"  # four players, two teams
    K510_3 = "510k3"  # three players

    @property
    def unit(self) -> Unit:
        """The unit this game scores in."""
        return Unit.MAHJONG if self is Game.MAHJONG else Unit.K510

    @property
    def seats(self) -> int:
        """How many players the game needs."""
        return 3 if self is Game.K510_3 else 4


class EventKind(StrEnum):
    """A record of the ledger."""

    HAND = "hand"  # a mahjong hand, a drawn hand, or a 510K report
    KONG = "kong"  # a mahjong kong, paid when the hand ends
    UNDO = "undo"  # reverts one earlier record (named by its id)

    @property
    def undoable(self) -> bool:
        """Whether /undo can revert a record of this kind."""
        return self is not EventKind.UNDO
