"""Settle balances with the fewest transfers.

Balances that net to zero are settled by transfers (payer, payee, amount > 0). Every zero-sum
group of s players can be settled with s − 1 transfers, so n non-zero balances need exactly
n − g transfers, g being the largest number of disjoint zero-sum groups they split into.

- Up to `EXACT_LIMIT` (14) non-zero balances: exact. g is found by a dynamic programme over
  subsets (O(2ⁿ·n): about 0.2 M steps at 14, instant); each group is then settled greedily.
- Above that: the problem is NP-hard and 2ⁿ grows out of reach, so a greedy heuristic is used —
  the largest debtor pays the largest creditor, and one of them is settled at each step: at most
  n − 1 transfers, though not always the fewest.

Output is deterministic (ties go to the smaller key) and sorted by (payer, payee).
`SETTLE_UP_ERRORS` lists the `ScoringError` codes raised here.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final, Protocol, TypeVar

from scoring.errors import N_, ScoringError

__all__ = ["EXACT_LIMIT", "SETTLE_UP_ERRORS", "settle_up"]

SETTLE_UP_ERRORS: Final[dict[str, str]] = {
    "balance_not_exact": N_("a balance is not an int or a Fraction"),
    "balances_not_zero": N_("the balances do not add up to zero"),
}

EXACT_LIMIT: Final = 14


class _Key(Protocol):
    """Hashable and orderable (a player id, a name, ...)."""

    def __hash__(self) -> int: ...
    def __lt__(self, other: Any, /) -> bool: ...


K = TypeVar("K", bound=_Key)


def settle_up(balances: Mapping[K, Fraction | int]) -> list[tuple[K, K, Fraction]]:
    """Transfers (payer, payee, amount) that bring every balance to zero (negative = owes)."""
    for key, value in balances.items():
        if not isinstance(value, int | Fraction):
            raise ScoringError(
                "balance_not_exact", f"balance of {key!r} is {value!r}", key=key, value=value
            )
    total = sum(balances.values(), Fraction(0))
    if total:
        raise ScoringError("balances_not_zero", f"the balances sum to {total}", total=total)
    keys = sorted(key for key, value in balances.items() if value)
    scale = math.lcm(*(Fraction(balances[key]).denominator for key in keys))
    amounts = [int(balances[key] * scale) for key in keys]
    exact = len(keys) <= EXACT_LIMIT
    groups = _zero_sum_groups(amounts) if exact else [list(range(len(keys)))]
    transfers = [
        (keys[payer], keys[payee], Fraction(amount, scale))
        for group in groups
        for payer, payee, amount in _greedy(group, amounts)
    ]
    return sorted(transfers)


def _zero_sum_groups(amounts: list[int]) -> list[list[int]]:
    """Split indices into the largest number of disjoint zero-sum groups (amounts sum to 0)."""
    n = len(amounts)
    size = 1 << n
    sums = [0] * size
    best = [0] * size  # most zero-sum groups a chain of removals down from the mask passes
    for mask in range(1, size):
        low = mask & -mask
        sums[mask] = sums[mask ^ low] + amounts[low.bit_length() - 1]
        top, rest = 0, mask
        while rest:
            bit = rest & -rest
            top = max(top, best[mask ^ bit])
            rest ^= bit
        best[mask] = top + (sums[mask] == 0)
    groups: list[list[int]] = []
    mask, group_end = size - 1, size - 1
    while mask:
        below = best[mask] - (sums[mask] == 0)
        rest = mask
        while best[mask ^ (rest & -rest)] != below:  # the lowest index that keeps the best
            rest &= rest - 1
        mask ^= rest & -rest
        if sums[mask] == 0:
            groups.append(_indices(group_end ^ mask))
            group_end = mask
    return groups


def _indices(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


def _greedy(group: list[int], amounts: list[int]) -> list[tuple[int, int, int]]:
    """Largest debtor pays largest creditor until the group is settled (≤ len − 1 transfers)."""
    debtors = [(amounts[i], i) for i in group if amounts[i] < 0]
    creditors = [(-amounts[i], i) for i in group if amounts[i] > 0]
    heapq.heapify(debtors)
    heapq.heapify(creditors)
    out: list[tuple[int, int, int]] = []
    while debtors:
        debt, payer = heapq.heappop(debtors)
        credit, payee = heapq.heappop(creditors)
        paid = min(-debt, -credit)
        out.append((payer, payee, paid))
        if debt + paid:
            heapq.heappush(debtors, (debt + paid, payer))
        if credit + paid:
            heapq.heappush(creditors, (credit + paid, payee))
    return out
