"""Small statistics helpers: medians of repeated measurements."""

from __future__ import annotations

import statistics
from collections.abc import Sequence


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def rounded(value: float | None, digits: int = 2) -> float | None:
    return None if value is None else round(value, digits)
