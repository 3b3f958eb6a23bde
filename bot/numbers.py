"""Exact points shown as people write them: 18, 22.5, +7.5, -9."""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction


def _terminates(value: Fraction) -> bool:
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    return d == 1


def fmt(value: Fraction | int, *, signed: bool = False) -> str:
    """A decimal without trailing zeros; a non-terminating third is rounded to 2 places."""
    if value.denominator == 1:  # most points are whole
        whole = int(value)
        return f"+{whole}" if signed and whole > 0 else str(whole)
    value = Fraction(value)
    if _terminates(value):
        exact = Decimal(value.numerator) / Decimal(value.denominator)
        text = format(exact.normalize(), "f") if exact != exact.to_integral() else str(int(exact))
    else:
        rounded = (Decimal(value.numerator) / Decimal(value.denominator)).quantize(
            Decimal("0.01"), ROUND_HALF_EVEN
        )
        text = format(rounded, "f")
    if signed and value > 0:
        return "+" + text
    return text
