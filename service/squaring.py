"""Settling up the way zerosum would have recorded it, hand by hand, and money in whole cents.

A record's *par* is its average over the players seated at it: zero for a zero-sum record
(mahjong, a free round, a transfer, 510K with zerosum), a share of the scores of a 510K hand
otherwise. Each balance row keeps the sum of its player's pars (moved with each record and its
undo), so balance − par is what zerosum would have recorded, with no scan of the season.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any, TypeVar

from scoring.fees import house_par
from scoring.games import Unit
from scoring.settle_up import settle_up
from storage.models import BalanceRow, ChatRow, TransferRow

K = TypeVar("K")
CENT = Fraction(1, 100)


def hand_par(
    transfers: Sequence[TransferRow],
    seats: Iterable[int],
    weights: Mapping[int, Fraction] | None = None,
) -> dict[int, Fraction]:
    """Each seated player's share of what the record scored in all (its transfers with the
    table), by player id; empty for a zero-sum record. `weights` (summing to 1, `par_weights`)
    share it otherwise than evenly among the seats."""
    total = Fraction(0)
    for t in transfers:
        total += (t.amount if t.payee_id is not None else 0) - (
            t.amount if t.payer_id is not None else 0
        )
    return par_of(total, seats, weights)


def par_of(
    total: Fraction, seats: Iterable[int], weights: Mapping[int, Fraction] | None = None
) -> dict[int, Fraction]:
    """`hand_par` from what the record scored in all (the card's figures are squared so too)."""
    seated = list(dict.fromkeys(seats))
    if not total or not seated:
        return {}
    if weights:
        return {pid: total * w for pid, w in weights.items() if w}
    return dict.fromkeys(seated, total / len(seated))


def fee_par(data: Mapping[str, Any]) -> dict[int, Fraction]:
    """The par a fee record (`service.fees`) added, from its stored data: its shares owed to
    the house, which settling up leaves out (its undo takes them back)."""
    shares = {int(pid): Fraction(v) for pid, v in (data.get("shares") or {}).items()}
    payer = data.get("payer")
    return house_par(shares, payer if isinstance(payer, int) else None)


def record_par(
    kind: str, data: Mapping[str, Any], transfers: Sequence[TransferRow], seats: Iterable[int]
) -> dict[int, Fraction]:
    """The par a record's payments carry, as written, undone or corrected: a fee's from its
    shares (`fee_par`), any other's from its payments (`hand_par`)."""
    if kind == "fee":
        return fee_par(data)
    return hand_par(transfers, seats, par_weights(data))


GROUPS = {4: ("team1", "team2"), 3: ("seat1", "seat2", "seat3")}


def team_shares(data: Mapping[str, Any]) -> list[dict[int, Fraction]] | None:
    """A finished marathon: for each team of four (seats 1+3, then 2+4), or each seat of three,
    each player's share of its score, by the hands they played in it; None for any other
    record (and for a marathon of three finished before seats kept their progress)."""
    info = data.get("marathon")
    if not info or not info.get("finished"):
        return None
    keys = next((keys for keys in GROUPS.values() if keys[0] in info), None)
    if keys is None:
        return None
    out = []
    for key in keys:
        hands = {int(pid): Fraction(n) for pid, n in info[key].items()}
        total = sum(hands.values(), Fraction(0))
        out.append({pid: n / total for pid, n in hands.items()} if total else {})
    return out


def par_weights(data: Mapping[str, Any]) -> dict[int, Fraction] | None:
    """How a record's par is shared when not evenly among its seats: a finished marathon gives
    each team of four half (each seat of three a third), shared among its players as its score
    is."""
    shares = team_shares(data)
    if shares is None:
        return None
    weights: dict[int, Fraction] = {}
    for team in shares:
        for pid, share in team.items():
            weights[pid] = weights.get(pid, Fraction(0)) + share / len(shares)
    return weights


def squared(rows: Iterable[BalanceRow]) -> dict[str, dict[int, Fraction]]:
    """Per unit, each player's balance less their par: what zerosum would have recorded. The
    pars of a unit add up to its balances; should a record older than the pars have left them
    apart, the rest is shared evenly, so what is settled always adds up to zero."""
    out: dict[str, dict[int, Fraction]] = {}
    for row in rows:
        out.setdefault(row.unit, {})[row.player_id] = Fraction(row.amount) - row.par
    for lines in out.values():
        rest = sum(lines.values(), Fraction(0))
        if rest:
            for pid in lines:
                lines[pid] -= rest / len(lines)
    return out


def own_stake(stakes: Mapping[str, str], unit: str) -> tuple[str, str] | None:
    """A unit's own stake in `ChatRow.stakes` (unit → decimal text) as (its key, the stake):
    a free game's name matches in any case."""
    want = unit.casefold()
    return next(((k, v) for k, v in stakes.items() if k.casefold() == want), None)


def stake_of(chat: ChatRow | None, unit: str) -> Fraction | None:
    """The stake a unit settles at: its own, else the chat's; None (or 0): no stake."""
    if chat is None:
        return None
    own = own_stake(chat.stakes, unit)
    stake = Fraction(Decimal(own[1])) if own is not None else chat.stake
    return stake or None


def own_stakes(chat: ChatRow) -> list[tuple[str, Fraction]]:
    """The games' own stakes, in the order sections are shown."""
    stakes = [(unit, Fraction(Decimal(v))) for unit, v in chat.stakes.items()]
    return sorted(stakes, key=lambda item: Unit.order(item[0]))


def in_cents(money: Mapping[K, Fraction], order: Mapping[K, str]) -> tuple[dict[K, Fraction], bool]:
    """Money that adds up to zero, each amount rounded to whole cents so that it still does:
    each is rounded down, then the cents left go one each to the largest remainders (ties:
    by `order`, a name). Also whether anything was rounded."""
    cents = {k: v / CENT for k, v in money.items()}
    down = {k: c.numerator // c.denominator for k, c in cents.items()}
    left = -sum(down.values())
    by_remainder = sorted(cents, key=lambda k: (-(cents[k] - down[k]), order[k]))
    for k in by_remainder[:left]:
        down[k] += 1
    rounded = any(c.denominator != 1 for c in cents.values())
    return {k: d * CENT for k, d in down.items()}, rounded


@dataclass(frozen=True)
class Money:
    """Points in money, as /settle money and the night's card both count it."""

    cents: dict[int, Fraction]  # by player id: whole cents, adding up to zero
    games: tuple[tuple[str, Fraction], ...]  # (unit, stake): the games counted
    left_out: tuple[str, ...]  # units with something to settle but no stake
    rounded: bool  # some player's money was not whole cents


def in_money(
    chat: ChatRow | None, by_unit: Mapping[str, Mapping[int, Fraction]], names: Mapping[int, str]
) -> Money:
    """Each game's squared points times its own stake (else the chat's), and the fees' money
    as it is (stake 1, listed in `games` too), added up per player, then in whole cents that
    still add up (ties by `names`). A unit where nobody is owed anything is not listed."""
    money: dict[int, Fraction] = {}
    games, left_out = [], []
    for unit in sorted(by_unit, key=Unit.order):
        if not any(by_unit[unit].values()):
            continue  # all undone, owed only to the house, or even: nothing to square
        stake = Fraction(1) if Unit.of(unit) is Unit.MONEY else stake_of(chat, unit)  # a fee
        if stake is None:
            left_out.append(unit)
            continue
        games.append((unit, stake))
        for pid, points in by_unit[unit].items():
            money[pid] = money.get(pid, Fraction(0)) + points * stake
    cents, rounded = in_cents(money, {pid: f"{names[pid].casefold()}\0{pid:012d}" for pid in money})
    return Money(cents, tuple(games), tuple(left_out), rounded)


def plan(
    balances: Mapping[int, Fraction], names: Mapping[int, str]
) -> tuple[tuple[str, str, Fraction], ...]:
    """The fewest transfers, by player id (two players of one name are two), named by `names`
    and listed by them."""
    keyed = {(names[pid], pid): amount for pid, amount in balances.items()}
    return tuple((a[0], b[0], amount) for a, b, amount in settle_up(keyed))
