"""Reply models: what a use case answers. The bot renders them in the chat's language."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from service.insight import ChartData, ExportData, StatsView


@dataclass(frozen=True)
class Payment:
    """`payer` pays `payee`; None is the table (510K scores are not zero-sum)."""

    payer: str | None
    payee: str | None
    amount: Fraction | int  # mahjong points are whole
    reason: str  # "win" | "sealed" | "kong" | "score"
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HandView:
    """A recorded hand or kong as stored: its payments and the data it was scored from."""

    event_id: int
    hand_no: int | None
    kind: str  # "hand" | "kong"
    game: str
    text: str
    at: datetime
    undone: bool
    recorded_by: str
    payments: tuple[Payment, ...]
    data: Mapping[str, Any]


@dataclass(frozen=True)
class Progress:
    """A running 510K marathon: each side's accumulated card points towards the target."""

    sides: tuple[tuple[str, int], ...]
    target: int
    hands: int


@dataclass(frozen=True)
class Recorded:
    view: HandView
    dealer: str | None = None  # mahjong: who deals next
    progress: Progress | None = None
    repeated: bool = False  # the same update came again: nothing new was recorded


@dataclass(frozen=True)
class Undone:
    view: HandView
    dealer: str | None = None


@dataclass(frozen=True)
class TableView:
    """The open table: game, options and seats (None = free)."""

    game: str
    marathon: bool
    sisuang: bool
    zerosum: bool
    seats: tuple[str | None, ...]
    dealer: str | None
    event: str  # "opened" | "joined" | "seated" | "players" | "dealer"
    who: str = ""  # the player the event is about


@dataclass(frozen=True)
class Linked:
    guest: str
    username: str


@dataclass(frozen=True)
class StandingsView:
    season: int
    archived: bool
    sections: tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...]  # unit → (name, balance)
    progress: Progress | None = None


@dataclass(frozen=True)
class HistoryView:
    season: int
    hands: tuple[HandView, ...]


@dataclass(frozen=True)
class SettleView:
    season: int
    sections: tuple[tuple[str, tuple[tuple[str, str, Fraction], ...]], ...]
    stake: Fraction | None


@dataclass(frozen=True)
class SeasonLine:
    number: int
    opened_at: datetime
    archived_at: datetime | None
    hands: int


@dataclass(frozen=True)
class SeasonsView:
    seasons: tuple[SeasonLine, ...]


@dataclass(frozen=True)
class ResetAsk:
    season: int
    season_id: int


@dataclass(frozen=True)
class ResetDone:
    archived: int
    new: int


@dataclass(frozen=True)
class SettingChanged:
    key: str
    value: str


@dataclass(frozen=True)
class RulesView:
    game: str | None
    sisuang: bool
    zerosum: bool
    stake: Fraction | None


@dataclass(frozen=True)
class HelpView:
    pass


@dataclass(frozen=True)
class Info:
    """A short message with no data of its own."""

    msgid: str
    params: Mapping[str, Any] = field(default_factory=dict)


Reply = (
    Recorded
    | StatsView
    | ChartData
    | ExportData
    | Undone
    | TableView
    | Linked
    | StandingsView
    | HistoryView
    | SettleView
    | SeasonsView
    | ResetAsk
    | ResetDone
    | SettingChanged
    | RulesView
    | HelpView
    | Info
)
