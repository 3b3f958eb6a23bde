"""Plain records of the rows the gateway reads and writes: one type per table, field names as
in the models (an ORM object costs 20–35 µs to build; these cost nothing)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any


@dataclass(slots=True)
class ChatRow:
    id: int
    lang: str | None
    stake: Fraction | None
    sisuang: bool
    zerosum: bool
    next_seq: int
    tz: str = "UTC"  # IANA time zone of the times shown (/set tz)


@dataclass(slots=True)
class SeasonRow:
    id: int
    number: int
    opened_at: datetime
    archived_at: datetime | None = None


@dataclass(slots=True)
class TableRow:
    id: int
    season_id: int
    game: str
    marathon: bool
    sisuang: bool
    zerosum: bool
    seats: list[int]
    dealer: int
    name: str = ""  # a free game's name


@dataclass(slots=True)
class PlayerRow:
    id: int
    name: str
    user_id: int | None
    username: str | None


@dataclass(slots=True)
class EventRow:
    id: int
    chat_id: int
    season_id: int
    table_id: int | None
    seq: int
    hand_no: int | None
    kind: str  # scoring.games.EventKind
    game: str  # scoring.games.Game
    text: str
    data: dict[str, Any]
    recorded_by: int | None
    recorded_by_name: str
    created_at: datetime
    undone_by: int | None = None


@dataclass(slots=True)
class TransferRow:
    season_id: int
    unit: str  # scoring.games.Unit
    payer_id: int | None
    payee_id: int | None
    amount: Fraction | int
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class BalanceRow:
    player_id: int
    unit: str  # scoring.games.Unit
    amount: Fraction


@dataclass(slots=True)
class OutboxRow:
    id: int
    chat_id: int | None
    method: str
    payload: dict[str, Any]
