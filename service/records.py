"""Scoring results as the ledger keeps them: plain dicts for its JSON, points as amounts."""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from functools import cache
from typing import Any


def as_record(value: Any) -> dict[str, Any]:
    """A flat dataclass as a dict: `dataclasses.asdict` without its recursive deep copy, which
    was a tenth of a hand's service time."""
    return {name: getattr(value, name) for name in _field_names(value.__class__)}


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))


def points(value: Fraction) -> Fraction | int:
    """Points as a payment's amount: whole ones as an int (the same value, shown and stored
    alike, and several times cheaper to add up into nets and balances than a `Fraction`)."""
    return int(value) if value.denominator == 1 else value
