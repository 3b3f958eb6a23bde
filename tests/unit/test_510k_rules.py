"""510K: validation, properties of a scored hand, and the marathon (连打)."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import (
    ERROR_CODES,
    K510_ERRORS,
    MarathonState,
    Report510k,
    ScoringError,
    card_points,
    marathon_add,
    marathon_finished,
    score_hand,
    score_marathon,
    validate_report,
)

A, B, C, D = 0, 1, 2, 3


@st.composite
def orders(draw: st.DrawFn, players: int) -> tuple[int, ...]:
    """A finishing order that ends a hand."""
    if players == 3:
        return tuple(draw(st.permutations(range(3)))[:2])
    team = draw(st.integers(0, 1))
    first, last = draw(st.permutations([team, team + 2]))
    other = draw(st.none() | st.sampled_from([1 - team, 3 - team]))
    if other is None:
        return (first, last)
    return (first, other, last) if draw(st.booleans()) else (other, first, last)


@st.composite
def reports(draw: st.DrawFn, players: int | None = None) -> Report510k:
    n = draw(st.sampled_from([3, 4])) if players is None else players
    order = draw(orders(n))
    holders = [s for s in range(n) if s not in order]
    total = 20 if draw(st.booleans()) else draw(st.integers(0, 20))  # in units of 5
    slots = n + len(holders)
    cuts = sorted(draw(st.lists(st.integers(0, total), min_size=slots - 1, max_size=slots - 1)))
    parts = [5 * (b - a) for a, b in zip([0, *cuts], [*cuts, total], strict=True)]
    held = [0] * n
    for seat, part in zip(holders, parts[n:], strict=True):
        held[seat] = part
    return Report510k(table=tuple(parts[:n]), order=order, held=tuple(held))


# -- validation ----------------------------------------------------------------------------

BAD: list[tuple[str, Report510k]] = [
    ("players_count", Report510k((50, 50), (0, 1), (0, 0))),
    ("players_count", Report510k((20,) * 5, (0, 2), (0,) * 5)),
    ("length_mismatch", Report510k((25, 25, 25, 25), (0, 2), (0, 0, 0))),
    ("negative_figure", Report510k((60, -5, 40, 5), (0, 2), (0, 0, 0, 0))),
    ("negative_figure", Report510k((60, 0, 40), (0, 1), (0, 0, -10))),
    ("not_multiple_of_5", Report510k((60, 3, 37, 0), (0, 2), (0, 0, 0, 0))),
    ("not_multiple_of_5", Report510k((60, 0, 30, 0), (0, 2, 1), (0, 0, 0, 12))),
    ("over_100", Report510k((60, 20, 30, 0), (0, 2), (0, 0, 0, 0))),
    ("over_100", Report510k((40, 30, 30), (0, 1), (0, 0, 5))),
    ("order_seat", Report510k((40, 30, 30), (0, 3), (0, 0, 0))),
    ("order_seat", Report510k((40, 30, 30, 0), (-1, 1), (0, 0, 0, 0))),
    ("order_duplicate", Report510k((40, 30, 30, 0), (0, 0), (0, 0, 0, 0))),
    ("end_condition", Report510k((40, 30, 30, 0), (0,), (0, 0, 0, 0))),
    ("end_condition", Report510k((40, 30, 30, 0), (0, 1), (0, 0, 0, 0))),
    ("end_condition", Report510k((40, 30, 30, 0), (0, 2, 1), (0, 0, 0, 0))),
    ("end_condition", Report510k((40, 30, 30, 0), (1, 3, 0), (0, 0, 0, 0))),
    ("end_condition", Report510k((40, 30, 30, 0), (0, 1, 3, 2), (0, 0, 0, 0))),
    ("end_condition", Report510k((40, 30, 30), (0,), (0, 0, 0))),
    ("end_condition", Report510k((40, 30, 30), (0, 1, 2), (0, 0, 0))),
    ("end_condition", Report510k((40, 30, 30), (), (0, 0, 0))),
    ("held_out", Report510k((40, 30, 20, 0), (0, 2), (10, 0, 0, 0))),
    ("held_out", Report510k((40, 30, 20), (0, 1), (0, 10, 0))),
]


@pytest.mark.parametrize(("code", "bad"), BAD, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(BAD)])
def test_refused_with_its_code(code: str, bad: Report510k) -> None:
    for call in (validate_report, card_points, score_hand, lambda r: marathon_add(None, r)):
        with pytest.raises(ScoringError) as caught:
            call(bad)
        assert caught.value.code == code
        assert str(caught.value)


def test_every_code_is_exercised() -> None:
    marathon_codes = {"players_mismatch", "marathon_over", "marathon_not_finished"}
    assert {code for code, _ in BAD} | marathon_codes == set(K510_ERRORS)
    assert set(K510_ERRORS) <= set(ERROR_CODES)


def test_incomplete_report_is_accepted_with_a_note() -> None:
    result = score_hand(Report510k((30, 20, 30, 10), (0, 2), (0, 0, 0, 0)))
    assert result.incomplete
    assert result.card_points == (50, 0, 30, -10)


@pytest.mark.parametrize("order", [(0, 2), (2, 0), (1, 0, 2), (0, 3, 2), (1, 3), (2, 1, 3)])
def test_four_player_orders_that_end_a_hand(order: tuple[int, ...]) -> None:
    held = tuple(0 if s in order else 5 for s in range(4))
    validate_report(Report510k((10, 10, 10, 10), order, held))


# -- properties of a scored hand -----------------------------------------------------------


@given(reports())
def test_card_points_balance(report: Report510k) -> None:
    holders = [s for s in range(report.players) if s not in report.order]
    expected = sum(report.table) + 20 - sum(20 + report.held[s] for s in holders)
    assert sum(card_points(report)) == expected
    assert score_hand(report).incomplete == (sum(report.table) + sum(report.held) != 100)


@given(reports(players=4))
def test_four_players_partners_share_equally(report: Report510k) -> None:
    result = score_hand(report)
    points = result.card_points
    assert result.scores[A] == result.scores[C]
    assert result.scores[B] == result.scores[D]
    assert result.team_points == (points[A] + points[C], points[B] + points[D])
    win, lose = result.winner, 1 - result.winner
    teams = result.team_points
    assert teams[win] > teams[lose] or (teams[win] == teams[lose] and report.order[0] % 2 == win)
    factor = 2 if result.doubled else 1
    assert result.scores[win] + result.scores[win + 2] == teams[win] * factor
    assert result.scores[lose] + result.scores[lose + 2] == teams[lose] * factor
    sweep = report.table[lose] + report.table[lose + 2] == 0 and report.order[0] % 2 != lose
    assert result.doubled == sweep
    assert {result.ranking[0], result.ranking[1]} == {win, win + 2}


@given(reports(players=3))
def test_three_players_score_their_card_points(report: Report510k) -> None:
    result = score_hand(report)
    points = result.card_points
    assert [points[s] for s in result.ranking] == sorted(points, reverse=True)
    assert result.winner == result.ranking[0]
    factor = 2 if result.doubled else 1
    assert result.scores == tuple(Fraction(p * factor) for p in points)
    assert result.doubled == (
        report.table[result.ranking[1]] + report.table[result.ranking[2]] == 0
    )


@given(reports())
def test_scores_are_exact_and_zerosum_shifts_them_to_zero(report: Report510k) -> None:
    plain = score_hand(report)
    shifted = score_hand(report, zerosum=True)
    assert all(type(s) is Fraction for s in plain.scores + shifted.scores)
    assert sum(shifted.scores) == 0
    assert len({p - s for p, s in zip(plain.scores, shifted.scores, strict=True)}) == 1
    assert plain.bonus == 0


def test_three_players_tie_ranks_the_earlier_out_first() -> None:
    result = score_hand(Report510k((30, 30, 40), (1, 0), (0, 0, 0)))
    assert result.card_points == (30, 50, 20)
    tie = score_hand(Report510k((50, 30, 10), (2, 1), (0, 0, 0)))
    assert tie.card_points == (30, 30, 30)
    assert tie.ranking == (2, 1, 0)


# -- marathon -------------------------------------------------------------------------------

SWEEP_AC = Report510k((60, 0, 40, 0), (A, C), (0, 0, 0, 0))  # AC 120, BD -40
B_FIRST = Report510k((60, 0, 40, 0), (B, A, C), (0, 0, 0, 0))  # AC 100, BD 0 (B 20, D -20)


def play(*hands: Report510k) -> MarathonState:
    state = None
    for hand in hands:
        state = marathon_add(state, hand)
    assert state is not None
    return state


def test_marathon_accumulates_and_finishes_at_500() -> None:
    state = play(*[SWEEP_AC] * 4)
    assert state.card_points == (320, -80, 160, -80)
    assert state.table == (240, 0, 160, 0)
    assert state.first_out == (4, 0, 0, 0)
    assert (state.hands, state.last_order) == (4, (A, C))
    assert not marathon_finished(state)  # AC 480
    with pytest.raises(ScoringError) as caught:
        score_marathon(state)
    assert caught.value.code == "marathon_not_finished"
    state = marathon_add(state, SWEEP_AC)
    assert marathon_finished(state)  # AC 600
    result = score_marathon(state)
    assert result.team_points == (600, -200)
    assert result.doubled  # BD took no table points and never went out first
    assert result.bonus == Fraction(1, 10)
    assert result.scores == tuple(
        map(Fraction, (660, -200, 660, -200))
    )  # 600 × 2 × 1.1 / 2; -200 × 2 / 2
    assert not result.incomplete
    zerosum = score_marathon(state, zerosum=True)
    assert sum(zerosum.scores) == 0
    assert zerosum.scores[A] - zerosum.scores[B] == 860


def test_marathon_doubling_needs_the_losers_never_first_out() -> None:
    state = play(*[SWEEP_AC] * 4, B_FIRST)
    assert state.first_out == (4, 1, 0, 0)
    result = score_marathon(state)
    assert result.team_points == (580, -160)
    assert not result.doubled
    assert result.scores == tuple(map(Fraction, (319, -80, 319, -80)))  # 580 × 1.1 / 2


# Both teams gain 50: AC by A going out first, BD by the table points.
EVEN_A_FIRST = Report510k((15, 35, 15, 35), (A, B, C), (0, 0, 0, 0))
EVEN_B_FIRST = Report510k((35, 15, 35, 15), (B, A, D), (0, 0, 0, 0))


@pytest.mark.parametrize(("last", "winner"), [(EVEN_A_FIRST, 0), (EVEN_B_FIRST, 1)])
def test_marathon_tie_goes_to_the_first_out_of_the_last_hand(last: Report510k, winner: int) -> None:
    state = play(*[EVEN_A_FIRST] * 9, last)
    result = score_marathon(state)
    assert result.team_points == (500, 500)
    assert result.winner == winner
    assert not result.doubled
    scores = [Fraction(250)] * 4
    scores[winner] = scores[winner + 2] = Fraction(275)  # 500 × 1.1 / 2
    assert result.scores == tuple(scores)


def test_three_player_marathon_tie_on_500() -> None:
    hands = [
        Report510k((100, 0, 0), (A, B), (0, 0, 0)),  # A 120, B 0, C -20
        Report510k((0, 100, 0), (B, A), (0, 0, 0)),  # A 0, B 120, C -20
    ]
    state = play(*hands * 4, Report510k((60, 40, 0), (B, A), (0, 0, 0)))
    assert state.card_points == (540, 540, -180)
    result = score_marathon(state)
    assert result.ranking == (B, A, C)  # equal: B went out first in the last hand
    assert result.winner == B
    assert not result.doubled  # A and C took table points
    assert result.scores == tuple(map(Fraction, (540, 594, -180)))


def test_marathon_refuses_a_mismatched_or_extra_hand() -> None:
    state = play(*[SWEEP_AC] * 5)
    with pytest.raises(ScoringError) as caught:
        marathon_add(state, SWEEP_AC)
    assert caught.value.code == "marathon_over"
    with pytest.raises(ScoringError) as caught:
        marathon_add(play(SWEEP_AC), Report510k((50, 50, 0), (A, B), (0, 0, 0)))
    assert caught.value.code == "players_mismatch"


@given(
    st.lists(reports(players=3), min_size=1, max_size=15)
    | st.lists(reports(players=4), min_size=1, max_size=15)
)
def test_marathon_totals_are_the_sums_of_the_hands(hands: list[Report510k]) -> None:
    state: MarathonState | None = None
    added: list[Report510k] = []
    for hand in hands:
        if state is not None and marathon_finished(state):
            break
        state = marathon_add(state, hand)
        added.append(hand)
    assert state is not None
    assert state.hands == len(added)
    assert state.last_order == added[-1].order
    for seat in range(state.players):
        assert state.card_points[seat] == sum(card_points(h)[seat] for h in added)
        assert state.table[seat] == sum(h.table[seat] for h in added)
        assert state.first_out[seat] == sum(h.order[0] == seat for h in added)
    if not marathon_finished(state):
        return
    plain = score_marathon(state)
    shifted = score_marathon(state, zerosum=True)
    assert sum(shifted.scores) == 0
    assert len({p - s for p, s in zip(plain.scores, shifted.scores, strict=True)}) == 1
    if state.players == 4:
        assert plain.scores[0] == plain.scores[2]
        assert plain.scores[1] == plain.scores[3]
