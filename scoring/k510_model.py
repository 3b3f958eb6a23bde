"""510K inputs and results. Seats are ints: 0..3 (teams 0+2 vs 1+3) or 0..2. Scores are exact."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction


@dataclass(frozen=True)
class Report510k:
    """One hand as players report it: table points per seat, who went out in order, and the
    point cards still held (per seat; 0 for those who went out)."""

    table: tuple[int, ...]
    order: tuple[int, ...]
    held: tuple[int, ...]

    @property
    def players(self) -> int:
        return len(self.table)


@dataclass(frozen=True)
class Result510k:
    """A scored hand (or a finished marathon)."""

    card_points: tuple[int, ...]  # p per seat (for a marathon: accumulated)
    team_points: tuple[int, int] | None  # 4 players: (seats 0+2, seats 1+3); 3 players: None
    winner: int  # 4 players: the winning team (0 or 1); 3 players: the winning seat
    ranking: tuple[int, ...]  # seats best first (4 players: winners' seats first)
    doubled: bool
    bonus: Fraction  # marathon bonus rate applied to the winning side (0 or 1/10)
    scores: tuple[Fraction, ...]  # per seat, after doubling, split, bonus and zero-sum
    incomplete: bool  # the figures do not add up to 100 (accepted with a visible note)


@dataclass(frozen=True)
class MarathonState:
    """Running totals of a marathon (连打) after some hands."""

    card_points: tuple[int, ...]  # accumulated p per seat
    table: tuple[int, ...]  # accumulated t per seat
    first_out: tuple[int, ...]  # how many hands each seat went out first
    hands: int
    last_order: tuple[int, ...]  # finishing order of the last hand

    @property
    def players(self) -> int:
        return len(self.card_points)
