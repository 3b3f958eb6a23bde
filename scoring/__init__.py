"""Pure scoring rules of jifen: mahjong (1-2-3-4 base) and its kong chains, 510K, settling up,
and the ledger's words (games, units, kinds of record). Standard library only; inputs and results
are the frozen dataclasses of the `*_model` modules."""

from scoring.errors import ScoringError
from scoring.free import FREE_ERRORS
from scoring.games import EventKind, Game, Unit
from scoring.k510 import (
    K510_ERRORS,
    card_points,
    marathon_add,
    marathon_finished,
    score_hand,
    score_marathon,
    validate_report,
)
from scoring.k510_model import MarathonState, Report510k, Result510k
from scoring.kong_chains import PendingKongs
from scoring.mahjong import MAHJONG_ERRORS, hand_value, settle_hand
from scoring.mahjong_model import (
    Formula,
    HandValue,
    Kong,
    KongKind,
    KongReason,
    MahjongHand,
    MahjongSettlement,
    Pattern,
    Reason,
    SealedReason,
    Transfer,
    Win,
    WinReason,
    WinType,
)
from scoring.settle_up import SETTLE_UP_ERRORS, settle_up
from scoring.tiles_model import TILES_ERRORS

#: Every ScoringError code of the package with a short English meaning (for translations);
#: a tile refusal's meaning is a template its `params` fill.
ERROR_CODES: dict[str, str] = {
    **MAHJONG_ERRORS,
    **K510_ERRORS,
    **SETTLE_UP_ERRORS,
    **FREE_ERRORS,
    **TILES_ERRORS,
}

__all__ = [
    "ERROR_CODES",
    "FREE_ERRORS",
    "K510_ERRORS",
    "MAHJONG_ERRORS",
    "SETTLE_UP_ERRORS",
    "TILES_ERRORS",
    "EventKind",
    "Formula",
    "Game",
    "HandValue",
    "Kong",
    "KongKind",
    "KongReason",
    "MahjongHand",
    "MahjongSettlement",
    "MarathonState",
    "Pattern",
    "PendingKongs",
    "Reason",
    "Report510k",
    "Result510k",
    "ScoringError",
    "SealedReason",
    "Transfer",
    "Unit",
    "Win",
    "WinReason",
    "WinType",
    "card_points",
    "hand_value",
    "marathon_add",
    "marathon_finished",
    "score_hand",
    "score_marathon",
    "settle_hand",
    "settle_up",
    "validate_report",
]
