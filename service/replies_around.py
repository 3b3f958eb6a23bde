"""The replies around the game (issue 42): a table nobody closed that closed itself, and /yue's
games arranged, their polls and reminders. Part of `service.replies`' `Reply` union."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class SittingClosed:
    """A table with no record for the idle gap closed itself at this command (`service.sittings`):
    how long it sat idle, its last record's time, where the new sitting's records start (the
    card's button shows the records before `before`), its game, the chat's time zone."""

    hours: int
    last_at: datetime
    before: int
    game: str
    tz: str = "UTC"


@dataclass(frozen=True)
class PlanLine:
    """One arranged game: its number in the list, when, which game, how many make the table,
    who arranged it, who said they come and how many said no."""

    number: int
    at: datetime
    game: str
    seats: int
    by: str
    coming: tuple[str, ...] = ()
    not_coming: int = 0


@dataclass(frozen=True)
class PlanMade:
    """`/yue …`: the game arranged; the bot posts its poll (`plan_id`), then keeps its id."""

    plan_id: int
    line: PlanLine
    tz: str
    lead: int  # minutes before the game when those who come are reminded


@dataclass(frozen=True)
class PlansView:
    """`/yue`: the games arranged, soonest first."""

    plans: tuple[PlanLine, ...]
    tz: str


@dataclass(frozen=True)
class PlanCancelled:
    line: PlanLine
    tz: str


@dataclass(frozen=True)
class PlanNoted:
    """A vote or the poll's ids kept; `full`: this vote made the table full (said once)."""

    full: PlanLine | None = None
    tz: str = "UTC"


@dataclass(frozen=True)
class PlanReminder:
    """The reminder of an arranged game, to those who said they come (`mentions`: their user
    ids and names), sent once."""

    chat_id: int
    thread_id: int
    line: PlanLine
    mentions: tuple[tuple[int, str], ...]
    tz: str
    lang: str
    minutes: int = 30  # until the game
    closed: SittingClosed | None = None  # the chat's table nobody closed, closed at this tick
