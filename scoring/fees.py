"""A fee beside the score (台费, 茶水): an amount of money shared equally among some players, in
whole cents. The cents that do not divide go one each to the first players in the given order
(the payer first, when one paid), and are said in the reply."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

CENT = Fraction(1, 100)


@dataclass(frozen=True)
class FeeSplit:
    """Each sharer's share (whole cents, adding up to the amount), and who pays a cent more."""

    shares: dict[int, Fraction]
    extra: tuple[int, ...]  # the sharers whose share has one cent more than the others'


def split(amount: Fraction, sharers: Sequence[int], payer: int | None = None) -> FeeSplit:
    """`amount` (whole cents, > 0) shared by `sharers` (distinct ids): each pays the amount
    divided by their number, rounded down to the cent; the cents left go one each to the
    payer (when sharing) and then to the sharers in order."""
    if not sharers or amount <= 0 or (amount / CENT).denominator != 1:
        raise ValueError("a fee is a positive amount in whole cents, shared by someone")
    cents = int(amount / CENT)
    base, left = divmod(cents, len(sharers))
    order = sorted(sharers, key=lambda pid: pid != payer)  # stable: the payer first
    extra = tuple(order[:left])
    shares = {pid: (base + (pid in extra)) * CENT for pid in sharers}
    return FeeSplit(shares, extra)


def owed(
    shares: Mapping[int, Fraction], payer: int | None
) -> list[tuple[int, int | None, Fraction]]:
    """The fee's payments (payer, payee, amount): each sharer pays their share to the one who
    paid it (not to themself), or, nobody having paid it yet, to the house (None)."""
    return [(pid, payer, share) for pid, share in shares.items() if pid != payer and share]


def house_par(shares: Mapping[int, Fraction], payer: int | None) -> dict[int, Fraction]:
    """What a fee moves that is not owed between players (by player id): all of it when it
    goes to the house (each sharer's share, negative), nothing when one of them paid. Settling
    up leaves it out, so that what is settled adds up to zero."""
    return {} if payer is not None else {pid: -share for pid, share in shares.items() if share}
