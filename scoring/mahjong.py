"""Mahjong ("1-2-3-4 base") settlement: a hand's value, its payments, kong points, 封胡, dealer.

Rules: as /rules states them. Input is validated first (`scoring.mahjong_checks`; error codes
in `MAHJONG_ERRORS`); nothing is computed for a refused hand.

Transfers: one per payer → payee per reason. A win gives `WinReason` transfers from its normal
payers; a sealed player (封胡) adds one `SealedReason` transfer — for a win on a discard the
liability V (双飞; on top of his own V when he dealt in), for a self-drawn win (自摸, 海底捞月,
杠上花) the whole amount, which he then pays alone. 死双 doubles that liability only. Each kong of
`MahjongHand.kongs` gives `KongReason` transfers of 1 (one transfer per kong and payer).
"""

from __future__ import annotations

from typing import Final, NamedTuple

from scoring.mahjong_checks import MAHJONG_ERRORS, check_hand, check_win
from scoring.mahjong_model import (
    Formula,
    HandValue,
    Kong,
    KongKind,
    KongReason,
    MahjongHand,
    MahjongSettlement,
    Pattern,
    SealedReason,
    Transfer,
    Win,
    WinReason,
    WinType,
)

__all__ = ["MAHJONG_ERRORS", "hand_value", "settle_hand"]

_DOUBLE_SELF_DRAW: Final = frozenset({WinType.HAIDILAO, WinType.TIANHU, WinType.DIHU})
_OTHERS: Final = ((1, 2, 3), (0, 2, 3), (0, 1, 3), (0, 1, 2))
_AN: Final = KongKind.AN
_EXPOSED: Final = Formula.GANGKAI_EXPOSED


class _Entry(NamedTuple):
    """A clause's value and its normal payments, by winner seat (immutable, so shared)."""

    value: HandValue
    pay: tuple[dict[int, Transfer], ...]  # pay[winner][payer]
    each: tuple[tuple[Transfer, ...], ...]  # each[winner]: the three others' payments


# Memoised results, shared between settlements. Inputs are validated before they get here, so
# the keys are bounded: a few thousand clause values, and 28 possible kongs (keyed by their
# fields: a tuple hashes in C, where the frozen dataclass's hash and equality are Python calls).
_VALUES: dict[tuple[object, ...], _Entry] = {}
_KONGS: dict[tuple[int, KongKind, int | None], tuple[Transfer, ...]] = {}


def hand_value(win: Win, dealer: int) -> HandValue:
    """Validate one winner's clause and explain its value V (what one normal payer pays)."""
    check_win(win, dealer)
    return _entry(win)[0]


def _entry(win: Win) -> _Entry:
    """A valid clause's value and normal payments, memoised on what they depend on."""
    kongs = win.chain_kongs
    exposed = any(kong.kind != _AN for kong in kongs) if kongs else False
    key = (
        win.how,
        win.pattern,
        win.groups,
        win.qingyise,
        win.menqing,
        win.quanqiuren,
        win.chain,
        len(kongs),
        exposed,
    )
    entry = _VALUES.get(key)
    if entry is None:
        value = _compute(win, len(kongs), exposed)
        pay = tuple(_payments(winner, value) for winner in range(4))
        each = tuple(tuple(payments.values()) for payments in pay)
        entry = _VALUES[key] = _Entry(value, pay, each)
    return entry


def _payments(winner: int, value: HandValue) -> dict[int, Transfer]:
    reason = WinReason(winner, value)
    return {payer: Transfer(payer, winner, value.value, reason) for payer in _OTHERS[winner]}


def _compute(win: Win, kongs: int, exposed: bool) -> HandValue:
    how = win.how
    pattern = win.pattern
    quanqiuren = win.quanqiuren
    if quanqiuren:
        if pattern == Pattern.JIHU:
            pattern = Pattern.PENGPENGHU  # no chow: four exposed melds are pungs/kongs
        if how.self_drawn:
            quanqiuren = False  # 十.2: a self-drawn 全求人 scores as 碰碰胡 自摸
    if pattern == Pattern.QIDUI:
        k = 2 << win.groups
        menqing = True
    else:
        k = 2 if pattern == Pattern.PENGPENGHU else 1
        menqing = win.menqing or how.always_concealed
    if win.qingyise:
        k *= 2
    if quanqiuren:
        k *= 2
    base = 4 if menqing else 3
    unit = base * k
    chain = 1
    if how == WinType.ZIMO:
        formula, value = Formula.SELF_DRAW, unit
    elif how == WinType.DIANPAO:
        if k == 1:
            formula, value = Formula.SMALL_PAO, (4 if menqing else 2)
        else:
            formula, value = Formula.BIG_PAO, 3 * unit // 2
    elif how.chained:
        chain = win.chain
        formula, value = Formula.BIG_CANNON, (3 * unit) << (chain - 1)
    elif how == WinType.GANGKAI:
        chain = kongs
        if exposed:
            formula, value = Formula.GANGKAI_EXPOSED, ((3 * unit) << chain) + chain
        else:
            formula, value = Formula.GANGKAI_CONCEALED, (unit << chain) + chain
    elif how in _DOUBLE_SELF_DRAW:
        formula, value = Formula.DOUBLE_SELF_DRAW, 2 * unit
    else:  # 全求炮, 海底炮, 人胡
        formula, value = Formula.BIG_CANNON, 3 * unit
    return HandValue(
        how=how,
        pattern=pattern,
        groups=win.groups,
        qingyise=win.qingyise,
        menqing=menqing,
        quanqiuren=quanqiuren,
        k=k,
        base=base,
        unit=unit,
        chain=chain,
        formula=formula,
        value=value,
    )


def settle_hand(hand: MahjongHand) -> MahjongSettlement:
    """Validate a finished hand and settle it: every win, then the kong points."""
    check_hand(hand)
    dealer = hand.dealer
    transfers: list[Transfer] = []
    values: list[HandValue] = []
    keep_deal = not hand.wins  # a drawn hand keeps the dealer
    for win in hand.wins:
        values.append(_settle_win(win, dealer, hand.sisuang, transfers))
        if win.winner == dealer:
            keep_deal = True
    for kong in hand.kongs:
        transfers.extend(_kong_payments(kong))
    next_dealer = dealer if keep_deal else (dealer + 1) % 4
    return MahjongSettlement(tuple(transfers), tuple(values), next_dealer)


def _settle_win(win: Win, dealer: int, sisuang: bool, out: list[Transfer]) -> HandValue:
    value, pay, each = _entry(win)
    winner, sealed = win.winner, win.sealed
    if win.how.on_discard:
        payer = dealer if win.discarder is None else win.discarder
        out.append(pay[winner][payer])
        if sealed is None:
            return value
        liability = value.value  # 双飞: the sealed player pays V too
    elif value.formula == _EXPOSED:
        if sealed is None:
            out.append(pay[winner][_first_konged(win.chain_kongs)])
            return value
        liability = value.value  # he alone pays the whole 杠上花 amount
    else:
        if sealed is None:
            out.extend(each[winner])
            return value
        liability = 3 * value.value  # he alone pays the whole self-drawn amount
    if sisuang:
        liability *= 2
    out.append(Transfer(sealed, winner, liability, SealedReason(winner, sealed, sisuang, value)))
    return value


def _first_konged(kongs: tuple[Kong, ...]) -> int:
    """The first player whose tile was konged in an exposed chain (第一个被明杠者)."""
    return next(kong.source for kong in kongs if kong.source is not None)


def _kong_payments(kong: Kong) -> tuple[Transfer, ...]:
    """Kong points: the source pays 1 for an exposed or added kong, each other for a concealed."""
    key = (kong.konger, kong.kind, kong.source)
    payments = _KONGS.get(key)
    if payments is None:
        reason = KongReason(kong)
        payers = _OTHERS[kong.konger] if kong.source is None else (kong.source,)
        payments = _KONGS[key] = tuple(Transfer(p, kong.konger, 1, reason) for p in payers)
    return payments
