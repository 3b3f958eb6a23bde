"""Free scoring's pure checks (scoring.free), and the property a ledger of free rounds and
transfers must keep: balances are the sum of the live transfers, and settling up squares them."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scoring import ScoringError, settle_up
from scoring.free import MAX_AMOUNT, check_amount, round_scores, transfer

PLAYERS = ("A", "B", "C", "D")


def test_the_balancing_player_takes_the_rest_and_the_others_score_zero() -> None:
    scores = round_scores([("A", Fraction(30)), ("B", Fraction(-10)), ("C", None)], PLAYERS)
    assert scores == {"A": 30, "B": -10, "C": -20, "D": 0}


@pytest.mark.parametrize(
    ("entries", "code"),
    [
        ([], "free_empty"),
        ([("A", Fraction(30)), ("B", Fraction(-10))], "free_sum"),
        ([("A", Fraction(30)), ("B", None), ("C", None)], "free_two_balancing"),
        ([("A", Fraction(1, 3)), ("B", None)], "free_decimals"),
        ([("A", Fraction(12345, 1000)), ("B", None)], "free_decimals"),
        ([("A", Fraction(MAX_AMOUNT + 1)), ("B", None)], "free_too_big"),
        ([("A", Fraction(0)), ("B", None)], "free_all_zero"),
    ],
)
def test_bad_rounds_are_refused_with_a_stable_code(
    entries: list[tuple[str, Fraction | None]], code: str
) -> None:
    with pytest.raises(ScoringError) as err:
        round_scores(entries, PLAYERS)
    assert err.value.code == code


def test_a_balancing_amount_beyond_the_bound_is_refused() -> None:
    entries = [("A", Fraction(MAX_AMOUNT)), ("B", Fraction(MAX_AMOUNT)), ("C", None)]
    with pytest.raises(ScoringError, match="at most"):
        round_scores(entries, PLAYERS)


def test_transfers() -> None:
    assert transfer("A", "B", Fraction(5, 2)) == {"A": Fraction(-5, 2), "B": Fraction(5, 2)}
    for payer, payee, amount, code in (
        ("A", "A", Fraction(1), "free_self_pay"),
        ("A", "B", Fraction(0), "free_zero_pay"),
        ("A", "B", Fraction(-1), "free_zero_pay"),
        ("A", "B", Fraction(1, 1000), "free_decimals"),
    ):
        with pytest.raises(ScoringError) as err:
            transfer(payer, payee, amount)
        assert err.value.code == code
    assert check_amount(Fraction(-MAX_AMOUNT)) == -MAX_AMOUNT


cents = st.integers(-MAX_AMOUNT * 100, MAX_AMOUNT * 100).map(lambda c: Fraction(c, 100))
a_round = st.lists(
    st.tuples(st.sampled_from(PLAYERS), cents), min_size=1, max_size=4, unique_by=lambda e: e[0]
)
a_transfer = st.tuples(
    st.sampled_from(PLAYERS), st.sampled_from(PLAYERS), cents.filter(lambda a: a > 0)
)
records = st.lists(
    st.tuples(st.one_of(a_round, a_transfer), st.booleans()), min_size=1, max_size=30
)


@given(records)
def test_balances_are_the_live_transfers_and_settle_up_squares_them(
    seq: list[tuple[Any, bool]],
) -> None:
    """A random evening of rounds (the last player named balances) and transfers, some undone:
    the running balances equal the sum of the live records, sum to zero, and settling up
    squares every one of them."""
    balances = dict.fromkeys(PLAYERS, Fraction(0))
    live: list[dict[str, Fraction]] = []
    for record, undone in seq:
        try:
            if isinstance(record, list):
                entries: list[tuple[str, Fraction | None]] = list(record[:-1])
                entries.append((record[-1][0], None))
                moves = dict(round_scores(entries, PLAYERS))
            else:
                payer, payee, amount = record
                moves = dict(transfer(payer, payee, amount))
        except ScoringError:
            continue  # refused: nothing changes
        assert sum(moves.values()) == 0
        assert all((m * 100).denominator == 1 for m in moves.values())
        if undone:
            continue
        live.append(moves)
        for who, m in moves.items():
            balances[who] += m
    expected = {p: sum((m.get(p, Fraction(0)) for m in live), Fraction(0)) for p in PLAYERS}
    assert balances == expected
    assert sum(balances.values()) == 0
    after = dict(balances)
    for payer, payee, amount in settle_up(balances):
        assert amount > 0
        after[payer] += amount
        after[payee] -= amount
    assert all(v == 0 for v in after.values())
