"""Exact points shown as people write them: 18, 22.5, +7.5, -9, 85.39.

Everything is kept exact (`Fraction`); what is shown has at most two decimals, rounded half
away from zero (85.390625 → 85.39, 23.4375 → 23.44, -0.125 → -0.13), the one rounding of every
reply, card and page (the CSV keeps the exact values). A stake is shown as it was set (it has
at most four decimals): `fmt_stake`."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from functools import lru_cache

CENT = Decimal("0.01")


def fmt(value: Fraction | int, *, signed: bool = False) -> str:
    """At most two decimals, no trailing zeros (22.5, 85.39, 18)."""
    if type(value) is int:  # most points are whole
        return f"+{value}" if signed and value > 0 else str(value)
    return _fraction(value.numerator, value.denominator, signed)


@lru_cache(maxsize=4096)
def _fraction(numerator: int, denominator: int, signed: bool) -> str:
    """`fmt` of a `Fraction` in lowest terms, by its terms: replies show the same few values
    again and again (nets, balances), so the decimal arithmetic runs once for each."""
    if denominator == 1:
        return f"+{numerator}" if signed and numerator > 0 else str(numerator)
    shown = _cents(numerator, denominator)
    text = format(shown.normalize(), "f") if shown != shown.to_integral() else str(int(shown))
    if text in ("-0", "0"):
        text = "0"
    elif signed and shown > 0:
        text = "+" + text
    return text


def _cents(numerator: int, denominator: int) -> Decimal:
    """The value rounded to the cent, half away from zero (exactly: no float, no context)."""
    sign = -1 if numerator < 0 else 1
    hundredths, rest = divmod(abs(numerator) * 100, denominator)
    if 2 * rest >= denominator:
        hundredths += 1
    return Decimal(sign * hundredths).scaleb(-2)


def rounded(value: Fraction | int) -> Fraction:
    """The value as `fmt` shows it."""
    value = Fraction(value)
    return Fraction(_cents(value.numerator, value.denominator))


def shown_apart(values: Iterable[Fraction | int]) -> bool:
    """Whether a list as shown (each rounded) adds up to other than the rounded sum of the
    exact values: where a reply adds its short note on rounding."""
    exact = [Fraction(v) for v in values]
    return sum((rounded(v) for v in exact), Fraction(0)) != rounded(sum(exact, Fraction(0)))


def fmt_money(value: Fraction | int) -> str:
    """Money: a whole amount as it is (12), any other with two decimals (3.70, 0.33)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return format(_cents(value.numerator, value.denominator).quantize(CENT, ROUND_HALF_UP), "f")


def fmt_stake(value: Fraction | int) -> str:
    """A stake as it was set (at most four decimals: 0.125 stays 0.125)."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    return format((Decimal(value.numerator) / Decimal(value.denominator)).normalize(), "f")
