"""What one recorded hand adds to a season's statistics (/stats), from what the ledger keeps of
it: its game, its data and its payments. Recording a hand adds its tally to the season's kept
statistics, undoing it subtracts the same tally: /stats reads them, never the history.

Definitions (as /stats shows them):
- hands: the hands of the game a player was at: seated, or paid or charged by it.
- wins (mahjong): one per win (several winners on one discard: one win each); the win's value is
  the winner's net result of the hand, kong and 封胡 payments included (biggest / average win).
- self-draws: wins on a tile the winner drew: 自摸, 海底捞月, 杠上花, 天胡, 地胡.
- deal-ins: hands won on a player's tile (one, however many won on it): the discarder recorded,
  else (人胡 with none given) the one player who paid the win.
- pairs (mahjong): what each player paid each other (every payment), for head-to-head.
- people: the hand's players (every game): whom one plays with most (/me).
- 510K: first out; results (a scored hand, or a finished marathon) of the people at it, and
  wins: the winning team's two players (four players) or the winner (three).
- free rounds (`/s`, in their unit `free` or `free:<name>`, as recorded in `data["unit"]`):
  every player at the table plays a round; a round with a positive net is a win, its net the
  win's value (biggest round).
Transfers (`/pay`) are no hands: they move balances only and are never tallied here.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from scoring.mahjong_model import WinType

COUNTERS = ("hands", "wins", "self_draws", "deal_ins", "first_out", "results")


class Payment(NamedTuple):
    payer: int | None  # None: the table (510K)
    payee: int | None
    amount: Fraction | int
    reason: str


@dataclass
class HandStats:
    """A hand's additions: counters by player, the wins' values, the pairs' payments."""

    unit: str  # "mahjong" | "510k" | "free" | "free:<name>"
    counts: dict[int, dict[str, int]] = field(default_factory=dict)
    wins: list[tuple[int, Fraction | int]] = field(default_factory=list)  # (winner, value)
    pairs: dict[tuple[int, int], Fraction | int] = field(default_factory=dict)
    people: frozenset[int] = frozenset()

    def add(self, pid: int, counter: str) -> None:
        counts = self.counts.get(pid)
        if counts is None:
            counts = self.counts[pid] = dict.fromkeys(COUNTERS, 0)
        counts[counter] += 1


def unit_of(game: str, data: Mapping[str, Any]) -> str:
    """The unit a hand of `game` counts in: "mahjong", "510k", a free game's own."""
    if game == "mahjong":
        return "mahjong"
    return str(data["unit"]) if game == "free" else "510k"


def hand_stats(
    game: str,
    data: Mapping[str, Any],
    payments: Sequence[Payment],
    counts: dict[int, dict[str, int]] | None = None,
) -> HandStats:
    """The tally of one hand of `game` ("mahjong", "510k", "510k3", "free"). `counts`: the
    counters to add the hand's to (a season's of its unit, say), else the hand's own."""
    seats: list[int | None] = list(data.get("seats") or [])
    people = {pid for pid in seats if pid is not None}
    for p in payments:
        people.update(pid for pid in (p.payer, p.payee) if pid is not None)
    out = HandStats(unit_of(game, data), {} if counts is None else counts)
    if game == "mahjong":
        _mahjong(out, data, payments, people)
    elif game == "free":
        _free(out, payments, people)
    else:
        _k510(out, data, seats, people)
    out.people = frozenset(people)
    return out


def _nets(payments: Sequence[Payment]) -> dict[int, Fraction | int]:
    """Each player's net of a record's payments (whole points stay ints: cheaper)."""
    net: dict[int, Fraction | int] = defaultdict(int)
    for p in payments:
        if p.payer is not None:
            net[p.payer] -= p.amount
        if p.payee is not None:
            net[p.payee] += p.amount
    return net


def _mahjong(
    out: HandStats, data: Mapping[str, Any], payments: Sequence[Payment], people: set[int]
) -> None:
    for pid in people:
        out.add(pid, "hands")
    net = _nets(payments)
    for p in payments:
        if p.payer is not None and p.payee is not None:
            pair = (p.payer, p.payee)
            out.pairs[pair] = out.pairs.get(pair, 0) + p.amount
    dealt_in: set[int] = set()
    for win in data.get("wins", []):
        winner = int(win["winner"])
        how = WinType(win["value"]["how"])
        out.add(winner, "wins")
        out.wins.append((winner, net.get(winner, 0)))
        if how.self_drawn:
            out.add(winner, "self_draws")
        discarder = _dealt_in(win, payments) if how.on_discard else None
        if discarder is not None:
            dealt_in.add(discarder)
    for pid in dealt_in:
        out.add(pid, "deal_ins")


def _free(out: HandStats, payments: Sequence[Payment], people: set[int]) -> None:
    net = _nets(payments)
    for pid in people:
        out.add(pid, "hands")
        if net.get(pid, 0) > 0:
            out.add(pid, "wins")
            out.wins.append((pid, Fraction(net[pid])))


def _dealt_in(win: Mapping[str, Any], payments: Sequence[Payment]) -> int | None:
    if win.get("discarder") is not None:
        return int(win["discarder"])
    winner = int(win["winner"])
    payers = [p.payer for p in payments if p.reason == "win" and p.payee == winner]
    return payers[0] if len(payers) == 1 else None


def _k510(
    out: HandStats, data: Mapping[str, Any], seats: list[int | None], people: set[int]
) -> None:
    for pid in people:
        out.add(pid, "hands")
    order = data.get("order") or []
    first = _seat(seats, int(order[0])) if order else None
    if first is not None:
        out.add(first, "first_out")
    result = data.get("result")
    if result is None:
        return
    for pid in people:
        out.add(pid, "results")
    winner = int(result["winner"])
    winning = (
        (winner, winner + 2)
        if result.get("team_points") is not None and len(seats) == 4
        else (winner,)
    )
    for seat in winning:
        won = _seat(seats, seat)
        if won is not None:
            out.add(won, "wins")


def _seat(seats: list[int | None], seat: int) -> int | None:
    return seats[seat] if 0 <= seat < len(seats) else None
