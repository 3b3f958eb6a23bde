"""Stored amounts read back exactly (`storage.types.exact_amount`)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from storage.types import FractionType, exact_amount


@given(st.fractions(max_denominator=1000))
def test_an_amount_reads_back_as_it_was_stored(amount: Fraction) -> None:
    """Whatever the column holds ("45/2", "-3"): the same value, and whole numbers as ints."""
    stored = FractionType().process_bind_param(amount, None)  # type: ignore[arg-type]
    assert stored is not None
    value = exact_amount(stored)
    assert value == amount
    assert isinstance(value, int) == (amount.denominator == 1)
