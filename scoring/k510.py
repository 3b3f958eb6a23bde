"""510K scoring: one reported hand, or a marathon (连打) of hands; the rules as /rules states them.

Card points of a seat: p = t + 20 if first out, − 20 − h if still holding cards. 4 players play
in teams (seats 0+2 vs 1+3: the team total decides, each player gets half the team's score);
3 players each for themselves. Scores are exact `Fraction`s.

**Interpretation** (marathon doubling, 4 players): judged on the accumulated totals — the losing
team took no table points in the whole marathon and none of its players was ever first out.
The winning side's score then grows by `MARATHON_BONUS` (10 %) before any zero-sum shift.
A marathon result has `incomplete = False`: the state keeps no per-hand totals.

`K510_ERRORS` maps every `ScoringError.code` raised here to what it means (for translations).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Final

from scoring.errors import N_, ScoringError
from scoring.k510_model import MarathonState, Report510k, Result510k

__all__ = [
    "K510_ERRORS",
    "MARATHON_BONUS",
    "MARATHON_TARGET",
    "card_points",
    "marathon_add",
    "marathon_finished",
    "score_hand",
    "score_marathon",
    "validate_report",
]

K510_ERRORS: Final[dict[str, str]] = {
    "players_count": N_("510K is played by 3 or 4 players"),
    "length_mismatch": N_("one figure per player is needed"),
    "negative_figure": N_("points are never negative"),
    "not_multiple_of_5": N_("points are multiples of 5"),
    "over_100": N_("table and held points exceed the deck's 100"),
    "order_seat": N_("a seat in the finishing order does not exist"),
    "order_duplicate": N_("a player appears twice in the finishing order"),
    "end_condition": N_("the hand ends when one team (4p) / two players (3p) are out"),
    "held_out": N_("a player who went out holds no cards"),
    "players_mismatch": N_("the hand has another number of players than the marathon"),
    "marathon_over": N_("the marathon already has a side at 500 or more"),
    "marathon_not_finished": N_("no side has reached 500 yet"),
}

DECK_POINTS: Final = 100
FIRST_OUT: Final = 20
MARATHON_TARGET: Final = 500
MARATHON_BONUS: Final = Fraction(1, 10)


def validate_report(report: Report510k) -> None:
    """Refuse a report that breaks the figures or the end condition (ScoringError)."""
    n = report.players
    if n not in (3, 4):
        raise ScoringError("players_count", f"{n} players: 510K needs 3 or 4", players=n)
    if len(report.held) != n:
        raise ScoringError(
            "length_mismatch", f"{len(report.held)} held figures for {n} players", players=n
        )
    for seat, value in (*enumerate(report.table), *enumerate(report.held)):
        if value < 0:
            raise ScoringError("negative_figure", f"seat {seat}: {value} < 0", seat=seat)
        if value % 5:
            raise ScoringError(
                "not_multiple_of_5", f"seat {seat}: {value} is not a multiple of 5", seat=seat
            )
    total = sum(report.table) + sum(report.held)
    if total > DECK_POINTS:
        raise ScoringError("over_100", f"{total} points reported, more than 100", total=total)
    order = report.order
    for seat in order:
        if not 0 <= seat < n:
            raise ScoringError("order_seat", f"no seat {seat} at {n} players", seat=seat)
    if len(set(order)) != len(order):
        raise ScoringError("order_duplicate", f"finishing order {order} repeats a seat")
    if not _ended(order, n):
        raise ScoringError("end_condition", f"finishing order {order} cannot end a hand")
    for seat in order:
        if report.held[seat]:
            raise ScoringError("held_out", f"seat {seat} went out but holds points", seat=seat)


def _ended(order: tuple[int, ...], n: int) -> bool:
    if n == 3:
        return len(order) == 2
    # 4 players: the last one out completes his team, and no team was complete before.
    if len(order) < 2:
        return False
    before = order[:-1]
    partner = (order[-1] + 2) % 4
    return partner in before and not any((seat + 2) % 4 in before for seat in before)


def card_points(report: Report510k) -> tuple[int, ...]:
    """Each seat's card points p (validated first)."""
    validate_report(report)
    return _card_points(report)


def _card_points(report: Report510k) -> tuple[int, ...]:
    order = report.order
    return tuple(
        t
        + (FIRST_OUT if seat == order[0] else 0)
        - (0 if seat in order else FIRST_OUT + report.held[seat])
        for seat, t in enumerate(report.table)
    )


def score_hand(report: Report510k, *, zerosum: bool = False) -> Result510k:
    """Score one reported hand."""
    validate_report(report)
    first_out = tuple(int(seat == report.order[0]) for seat in range(report.players))
    return _score(
        _card_points(report),
        report.table,
        first_out,
        report.order,
        bonus=Fraction(0),
        zerosum=zerosum,
        incomplete=sum(report.table) + sum(report.held) != DECK_POINTS,
    )


def _score(
    points: tuple[int, ...],
    table: tuple[int, ...],
    first_out: tuple[int, ...],
    order: tuple[int, ...],
    *,
    bonus: Fraction,
    zerosum: bool,
    incomplete: bool,
) -> Result510k:
    """Shared by a hand and a marathon. `first_out[s]`: how often seat s went out first;
    `order`: the (last) hand's finishing order, which breaks ties."""
    n = len(points)
    position = {seat: i for i, seat in enumerate(order)}

    def rank_key(seat: int) -> tuple[int, int]:
        return (-points[seat], position.get(seat, n))

    scores: list[Fraction]
    team_points: tuple[int, int] | None = None
    if n == 4:
        team_points = (points[0] + points[2], points[1] + points[3])
        if team_points[0] != team_points[1]:
            winner = 0 if team_points[0] > team_points[1] else 1
        else:
            winner = order[0] % 2
        loser = 1 - winner
        doubled = table[loser] + table[loser + 2] == 0 and not (
            first_out[loser] or first_out[loser + 2]
        )
        factor = 2 if doubled else 1
        team_scores = [Fraction(total * factor) for total in team_points]
        if bonus:
            team_scores[winner] *= 1 + bonus
        ranking = (
            *sorted((winner, winner + 2), key=rank_key),
            *sorted((loser, loser + 2), key=rank_key),
        )
        halves = (team_scores[0] / 2, team_scores[1] / 2)  # each partner gets half
        scores = [halves[seat % 2] for seat in range(n)]
    else:
        ranking = tuple(sorted(range(n), key=rank_key))
        winner = ranking[0]
        doubled = table[ranking[1]] + table[ranking[2]] == 0
        factor = 2 if doubled else 1
        scores = [Fraction(p * factor) for p in points]
        if bonus:
            scores[winner] *= 1 + bonus
    if zerosum:
        mean = sum(scores, Fraction(0)) / n
        scores = [score - mean for score in scores]
    return Result510k(
        card_points=points,
        team_points=team_points,
        winner=winner,
        ranking=ranking,
        doubled=doubled,
        bonus=bonus,
        scores=tuple(scores),
        incomplete=incomplete,
    )


def marathon_add(state: MarathonState | None, report: Report510k) -> MarathonState:
    """Add a validated hand to a marathon (None: start one)."""
    validate_report(report)
    n = report.players
    if state is None:
        state = MarathonState((0,) * n, (0,) * n, (0,) * n, 0, ())
    elif state.players != n:
        raise ScoringError(
            "players_mismatch",
            f"a {n}-player hand in a {state.players}-player marathon",
            players=n,
            marathon=state.players,
        )
    elif marathon_finished(state):
        raise ScoringError("marathon_over", "the marathon is over: a side has 500 or more")
    points = _card_points(report)
    first = report.order[0]
    return MarathonState(
        card_points=tuple(a + b for a, b in zip(state.card_points, points, strict=True)),
        table=tuple(a + b for a, b in zip(state.table, report.table, strict=True)),
        first_out=tuple(c + (seat == first) for seat, c in enumerate(state.first_out)),
        hands=state.hands + 1,
        last_order=report.order,
    )


def _sides(state: MarathonState) -> tuple[int, ...]:
    """Running totals per side: per team (4 players) or per player (3 players)."""
    p = state.card_points
    return (p[0] + p[2], p[1] + p[3]) if state.players == 4 else p


def marathon_finished(state: MarathonState) -> bool:
    """True once some side (a team's two seats together, or a player) has 500 or more."""
    return max(_sides(state)) >= MARATHON_TARGET


def score_marathon(state: MarathonState, *, zerosum: bool = False) -> Result510k:
    """Score a finished marathon on its accumulated totals, with the 10 % bonus (连打奖励)."""
    if not marathon_finished(state):
        raise ScoringError(
            "marathon_not_finished",
            f"no side has {MARATHON_TARGET} yet",
            best=max(_sides(state)),
        )
    return _score(
        state.card_points,
        state.table,
        state.first_out,
        state.last_order,
        bonus=MARATHON_BONUS,
        zerosum=zerosum,
        incomplete=False,
    )
