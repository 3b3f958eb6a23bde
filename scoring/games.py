"""The ledger's words: the games a table plays, the units they score in, the kinds of record."""

from __future__ import annotations

from enum import StrEnum


class Unit(StrEnum):
    """What a balance counts. Declared in the order sections are shown (standings, settle-up)."""

    MAHJONG = "mahjong"  # mahjong points
    K510 = "510k"  # 510K scores
    FREE = "free"  # free points of any other game: one unit per game name (`free_unit`)
    MONEY = "money"  # a fee beside the score (/fee), in money: one unit per fee (`fee_unit`)

    @staticmethod
    def of(unit: str) -> Unit:
        """The kind of a stored unit (`free:斗地主` is a free unit, `money:台费` a fee)."""
        if unit.startswith(FREE_PREFIX):
            return Unit.FREE
        return Unit.MONEY if unit.startswith(MONEY_PREFIX) else Unit(unit)

    @staticmethod
    def order(unit: str) -> tuple[int, str]:
        """Sort key of stored units: mahjong, 510K, then free games by name."""
        return list(Unit).index(Unit.of(unit)), unit


FREE_PREFIX = "free:"
MONEY_PREFIX = "money:"


def fee_unit(what: str) -> str:
    """The stored unit of a fee: `money:<what>` (`money:台费`), counted in money, not points."""
    return MONEY_PREFIX + what


def fee_name(unit: str) -> str:
    """What a fee unit is for (`台费`); "" for a unit of points."""
    return unit.removeprefix(MONEY_PREFIX) if unit.startswith(MONEY_PREFIX) else ""


def is_points(unit: str) -> bool:
    """Whether a unit counts a game's points (not a fee's money): standings, stats, chart."""
    return Unit.of(unit) is not Unit.MONEY


def free_unit(name: str) -> str:
    """The stored unit of a free game: `free` without a name, `free:<name>` with one."""
    return FREE_PREFIX + name if name else Unit.FREE.value


def free_name(unit: str) -> str:
    """The game name of a free unit ("" for the unnamed one)."""
    return unit.removeprefix(FREE_PREFIX) if unit.startswith(FREE_PREFIX) else ""


class Game(StrEnum):
    MAHJONG = "mahjong"
    K510 = "510k"  # four players, two teams
    K510_3 = "510k3"  # three players
    FREE = "free"  # any other game, 2–10 players, scores typed as they are (`scoring.free`)

    @property
    def unit(self) -> Unit:
        """The kind of unit this game scores in (a free table's is `free_unit(its name)`)."""
        return {Game.MAHJONG: Unit.MAHJONG, Game.FREE: Unit.FREE}.get(self, Unit.K510)

    @property
    def seats(self) -> int:
        """How many players the game needs (a free game: at most)."""
        return {Game.K510_3: 3, Game.FREE: 10}.get(self, 4)

    @property
    def min_seats(self) -> int:
        """How many players the game needs at least."""
        return 2 if self is Game.FREE else self.seats


class EventKind(StrEnum):
    """A record of the ledger."""

    HAND = "hand"  # a mahjong hand, a drawn hand, or a 510K report
    KONG = "kong"  # a mahjong kong, paid when the hand ends
    PAY = "pay"  # a transfer between two players (/pay), at any table
    FEE = "fee"  # a cost beside the score (/fee), in money, shared by some players
    UNDO = "undo"  # reverts one earlier record (named by its id)
    EDIT = "edit"  # corrects one earlier record in place (`service.edit`)
    VERSION = "version"  # a corrected record as it read before, replaced (`service.edit`)

    @property
    def undoable(self) -> bool:
        """Whether /undo can revert a record of this kind."""
        return self not in (EventKind.UNDO, EventKind.VERSION)
