"""Free scoring: the checks of a round typed as scores (`/s A+30 B-10 C`) and of a transfer
(`/pay A B 5`). Whatever the game, the bot can only check the arithmetic: amounts exact with at
most two decimals and within bounds, a round summing to zero, one balancing player at most."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from fractions import Fraction
from typing import TypeVar

from scoring.errors import N_, ScoringError

MAX_AMOUNT = 1_000_000  # per player and round, and per transfer
DECIMALS = 2

FREE_ERRORS: dict[str, str] = {
    "free_decimals": N_("an amount has at most two decimals"),
    "free_too_big": N_("an amount is at most 1000000"),
    "free_zero_pay": N_("a transfer moves more than 0"),
    "free_sum": N_("the scores must add up to 0"),
    "free_two_balancing": N_("only one player can be written without a number"),
    "free_empty": N_("name at least one player with a score"),
    "free_self_pay": N_("a player cannot pay themselves"),
    "free_all_zero": N_("every score is 0: nothing to record"),
}

K = TypeVar("K", bound=Hashable)


def check_amount(amount: Fraction) -> Fraction:
    """`amount` if it is exact to the cent and at most `MAX_AMOUNT` in size."""
    if (amount * 10**DECIMALS).denominator != 1:
        raise ScoringError("free_decimals", FREE_ERRORS["free_decimals"], amount=str(amount))
    if abs(amount) > MAX_AMOUNT:
        raise ScoringError("free_too_big", FREE_ERRORS["free_too_big"], amount=str(amount))
    return amount


def round_scores(
    entries: Sequence[tuple[K, Fraction | None]], seated: Sequence[K]
) -> dict[K, Fraction]:
    """Each seated player's score for a round: the ones given, the balancing amount for the one
    given without a number (None), 0 for the others. The scores sum to zero."""
    if not entries:
        raise ScoringError("free_empty", FREE_ERRORS["free_empty"])
    balancing = [who for who, amount in entries if amount is None]
    if len(balancing) > 1:
        raise ScoringError("free_two_balancing", FREE_ERRORS["free_two_balancing"])
    given = {who: check_amount(amount) for who, amount in entries if amount is not None}
    total = sum(given.values(), Fraction(0))
    if balancing:
        given[balancing[0]] = check_amount(-total)
    elif total != 0:
        raise ScoringError("free_sum", FREE_ERRORS["free_sum"], total=str(total))
    if not any(given.values()):
        raise ScoringError("free_all_zero", FREE_ERRORS["free_all_zero"])
    return {who: given.get(who, Fraction(0)) for who in seated}


def transfer(payer: K, payee: K, amount: Fraction) -> Mapping[K, Fraction]:
    """What a transfer does to the two balances."""
    if payer == payee:
        raise ScoringError("free_self_pay", FREE_ERRORS["free_self_pay"])
    if check_amount(amount) <= 0:
        raise ScoringError("free_zero_pay", FREE_ERRORS["free_zero_pay"])
    return {payer: -amount, payee: amount}
