"""Exact points shown as people write them: 18, 22.5, +7.5, -9."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from functools import lru_cache


def _terminates(denominator: int) -> bool:
    d = denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def fmt(value: Fraction | int, *, signed: bool = False) -> str:
    """A decimal without trailing zeros; a non-terminating third is rounded to 2 places."""
    if type(value) is int:  # most points are whole
        return f"+{value}" if signed and value > 0 else str(value)
    return _fraction(value.numerator, value.denominator, signed)


@lru_cache(maxsize=4096)
def _fraction(numerator: int, denominator: int, signed: bool) -> str:
    """`fmt` of a `Fraction` in lowest terms, by its terms: replies show the same few values
    again and again (nets, balances), so the decimal arithmetic runs once for each."""
    if denominator == 1:
        return f"+{numerator}" if signed and numerator > 0 else str(numerator)
    quotient = Decimal(numerator) / Decimal(denominator)
    if _terminates(denominator):
        text = (
            format(quotient.normalize(), "f")
            if quotient != quotient.to_integral()
            else str(int(quotient))
        )
    else:
        text = format(quotient.quantize(Decimal("0.01"), ROUND_HALF_EVEN), "f")
    if signed and numerator > 0:
        return "+" + text
    return text


def fmt_money(value: Fraction | int) -> str:
    """Money: a whole amount as it is (12), any other with two decimals (3.70, 0.33)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    cents = Decimal(value.numerator) / Decimal(value.denominator)
    return format(cents.quantize(Decimal("0.01"), ROUND_HALF_EVEN), "f")
