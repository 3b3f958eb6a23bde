"""settle_up: zeroes the balances with the fewest transfers (exact up to EXACT_LIMIT)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from fractions import Fraction
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring import ScoringError, settle_up
from scoring.settle_up import EXACT_LIMIT


def zero_sum(values: list[Fraction]) -> dict[int, Fraction]:
    """Seat i gets values[i]; a last seat balances the total."""
    out = dict(enumerate(values))
    out[len(values)] = -sum(values, Fraction(0))
    return out


AMOUNTS = st.integers(-50, 50).map(Fraction) | st.fractions(
    min_value=-50, max_value=50, max_denominator=4
)


def balances(max_size: int) -> st.SearchStrategy[dict[int, Fraction]]:
    return st.lists(AMOUNTS, max_size=max_size).map(zero_sum)


def applied(balances: Mapping[int, Fraction], transfers: list[tuple[int, int, Fraction]]) -> bool:
    left = dict(balances)
    for payer, payee, amount in transfers:
        assert amount > 0
        assert type(amount) is Fraction
        assert payer != payee
        left[payer] += amount
        left[payee] -= amount
    return not any(left.values())


def partitions(items: list[int]) -> Iterator[list[list[int]]]:
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for smaller in partitions(rest):
        yield [[first], *smaller]
        for i in range(len(smaller)):
            yield [*smaller[:i], [first, *smaller[i]], *smaller[i + 1 :]]


def fewest_transfers(balances: Mapping[int, Fraction]) -> int:
    """Brute force: the transfers of a settlement connect zero-sum groups, each of s players
    needing ≥ s − 1 transfers, so the optimum is n − (most zero-sum blocks of a partition)."""
    keys = [k for k, v in balances.items() if v]
    best = max(
        (
            len(blocks)
            for blocks in partitions(keys)
            if all(sum(balances[k] for k in block) == 0 for block in blocks)
        ),
        default=0,
    )
    return len(keys) - best


@given(balances(max_size=7))
def test_optimal_on_small_inputs(balances: dict[int, Fraction]) -> None:
    transfers = settle_up(balances)
    assert applied(balances, transfers)
    assert len(transfers) == fewest_transfers(balances)


@settings(max_examples=30, deadline=None)
@given(balances(max_size=30))
def test_any_size_zeroes_with_at_most_n_minus_1(balances: dict[int, Fraction]) -> None:
    transfers = settle_up(balances)
    assert applied(balances, transfers)
    nonzero = sum(1 for v in balances.values() if v)
    assert len(transfers) <= max(nonzero - 1, 0)


@given(balances(max_size=8), st.randoms())
def test_deterministic_whatever_the_order(balances: dict[int, Fraction], rnd: Random) -> None:
    items = list(balances.items())
    rnd.shuffle(items)
    assert settle_up(dict(items)) == settle_up(balances)


def test_exact_beats_the_plain_greedy() -> None:
    # Largest debtor → largest creditor would need 4 transfers; {b, c} and {a, d, e} need 3.
    balances = {"a": -6, "b": -4, "c": 4, "d": 3, "e": 3}
    transfers = settle_up(balances)
    assert transfers == [("a", "d", Fraction(3)), ("a", "e", Fraction(3)), ("b", "c", Fraction(4))]


def test_exact_at_the_limit_is_fast_and_optimal() -> None:
    pairs = {f"p{i:02d}": Fraction(i + 1, 2) for i in range(EXACT_LIMIT // 2)}
    balances = {**pairs, **{f"q{k[1:]}": -v for k, v in pairs.items()}}
    assert len(balances) == EXACT_LIMIT
    transfers = settle_up(balances)
    assert len(transfers) == EXACT_LIMIT // 2
    assert all(payer[1:] == payee[1:] for payer, payee, _ in transfers)


def test_sorted_output_and_any_orderable_key() -> None:
    transfers = settle_up({(2, "x"): 5, (1, "y"): -3, (0, "z"): -2})
    assert transfers == [((0, "z"), (2, "x"), Fraction(2)), ((1, "y"), (2, "x"), Fraction(3))]
    assert settle_up({}) == []
    assert settle_up({"a": 0, "b": Fraction(0)}) == []


def test_balances_must_sum_to_zero() -> None:
    with pytest.raises(ScoringError) as caught:
        settle_up({"a": 5, "b": -4})
    assert caught.value.code == "balances_not_zero"
    assert caught.value.params["total"] == 1


def test_balances_must_be_exact() -> None:
    with pytest.raises(ScoringError) as caught:
        settle_up({"a": 0.5, "b": -0.5})  # type: ignore[dict-item]
    assert caught.value.code == "balance_not_exact"
