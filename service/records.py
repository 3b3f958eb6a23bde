"""Scoring results as plain dicts for the ledger's JSON."""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import Any


def as_record(value: Any) -> dict[str, Any]:
    """A flat dataclass as a dict: `dataclasses.asdict` without its recursive deep copy, which
    was a tenth of a hand's service time."""
    return {name: getattr(value, name) for name in _field_names(value.__class__)}


@cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(field.name for field in dataclasses.fields(cls))
