"""Column types: exact points stored as text fractions ("45/2"), never floats."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from sqlalchemy import String
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


def exact_amount(text: str) -> Fraction | int:
    """A stored amount ("45/2" or "-3") for arithmetic: whole numbers stay ints (exact, and
    cheaper to add up)."""
    numerator, slash, denominator = text.partition("/")
    return Fraction(int(numerator), int(denominator)) if slash else int(text)


class FractionType(TypeDecorator[Fraction]):
    """An exact amount kept as "numerator/denominator" text (or a plain integer), read back as
    a `Fraction` (never a float)."""

    impl = String(48)
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        return str(Fraction(value))

    def process_result_value(self, value: Any, dialect: Dialect) -> Fraction | None:
        return None if value is None else Fraction(exact_amount(value))
