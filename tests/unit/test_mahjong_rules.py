"""Mahjong settlement rules beyond the seed's figures: kong points, 封胡/死双, several winners,
the dealer, and the normalisation of a hand (mahjong.md)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from scoring import (
    Formula,
    Kong,
    KongKind,
    KongReason,
    MahjongHand,
    MahjongSettlement,
    Pattern,
    SealedReason,
    Win,
    WinReason,
    WinType,
    hand_value,
    settle_hand,
)

A, B, C, D = 0, 1, 2, 3  # A wins; B is sealed by A; C another player


def paid(settlement: MahjongSettlement, kind: type | None = None) -> Counter[tuple[int, int]]:
    """Total per (payer, payee), optionally only for one reason type."""
    out: Counter[tuple[int, int]] = Counter()
    for t in settlement.transfers:
        if kind is None or isinstance(t.reason, kind):
            out[t.payer, t.payee] += t.amount
    return out


def one_win(win: Win, *, dealer: int = A, sisuang: bool = False) -> MahjongSettlement:
    return settle_hand(MahjongHand(dealer=dealer, wins=(win,), sisuang=sisuang))


# -- ways to win ---------------------------------------------------------------------------


def ways(predicate: str) -> set[str]:
    return {how.value for how in WinType if getattr(how, predicate)}


def test_ways_to_win_by_who_pays() -> None:
    on_discard = {"dianpao", "gangpao", "qianggang", "quanqiupao", "haidipao", "renhu"}
    assert ways("on_discard") == on_discard
    assert ways("self_drawn") == {"zimo", "gangkai", "haidilao", "tianhu", "dihu"}
    assert ways("needs_discarder") == on_discard - {"renhu"}


def test_ways_to_win_with_a_payers_chain_or_always_concealed() -> None:
    assert ways("chained") == {"gangpao", "qianggang"}
    assert ways("always_concealed") == {"tianhu", "dihu", "renhu"}


# -- kong points --------------------------------------------------------------------------


@pytest.mark.parametrize("kind", [KongKind.MING, KongKind.BU])
def test_exposed_or_added_kong_is_paid_by_its_source(kind: KongKind) -> None:
    kong = Kong(konger=B, kind=kind, source=D)
    settlement = settle_hand(MahjongHand(dealer=A, kongs=(kong,)))
    assert paid(settlement) == {(D, B): 1}
    assert [t.reason for t in settlement.transfers] == [KongReason(kong)]


def test_concealed_kong_is_paid_by_each_other_player() -> None:
    settlement = settle_hand(MahjongHand(dealer=A, kongs=(Kong(C, KongKind.AN),)))
    assert paid(settlement) == {(A, C): 1, (B, C): 1, (D, C): 1}


def test_drawn_hand_settles_only_kongs_and_keeps_the_dealer() -> None:
    kongs = (Kong(A, KongKind.AN), Kong(B, KongKind.MING, C), Kong(B, KongKind.BU, A))
    settlement = settle_hand(MahjongHand(dealer=D, kongs=kongs))
    assert settlement.values == ()
    assert settlement.next_dealer == D
    assert settlement.net() == {A: 3 - 1, B: 2 - 1, C: -1 - 1, D: -1}


def test_kongs_settle_alongside_a_win() -> None:
    win = Win(winner=A, how=WinType.DIANPAO, discarder=C)
    kong = Kong(D, KongKind.MING, A)
    alone = one_win(win)
    both = settle_hand(MahjongHand(dealer=A, wins=(win,), kongs=(kong,)))
    assert paid(both, WinReason) == paid(alone)
    assert paid(both, KongReason) == {(A, D): 1}


# -- 封胡 (sealed), 双飞, 死双: the seed's 普通碰碰胡 V = 9 ---------------------------------------

PPH = Win(winner=A, how=WinType.DIANPAO, pattern=Pattern.PENGPENGHU, sealed=B)


@pytest.mark.parametrize(("sisuang", "sealed_pays"), [(False, 9), (True, 18)])
def test_other_player_deals_in_sealed_pays_too(sisuang: bool, sealed_pays: int) -> None:
    settlement = one_win(replace(PPH, discarder=C), sisuang=sisuang)
    assert paid(settlement, WinReason) == {(C, A): 9}
    assert paid(settlement, SealedReason) == {(B, A): sealed_pays}


@pytest.mark.parametrize(("sisuang", "total"), [(False, 18), (True, 27)])
def test_sealed_player_deals_in(sisuang: bool, total: int) -> None:
    settlement = one_win(replace(PPH, discarder=B), sisuang=sisuang)
    assert paid(settlement) == {(B, A): total}
    assert paid(settlement, WinReason) == {(B, A): 9}
    assert len(settlement.transfers) == 2  # one per reason


@pytest.mark.parametrize(("sisuang", "total"), [(False, 18), (True, 36)])
def test_self_draw_sealed_pays_alone(sisuang: bool, total: int) -> None:
    settlement = one_win(replace(PPH, how=WinType.ZIMO), sisuang=sisuang)
    assert paid(settlement) == {(B, A): total}
    (transfer,) = settlement.transfers
    assert transfer.reason == SealedReason(A, B, sisuang, settlement.values[0])


def test_haidilao_sealed_pays_the_three_shares() -> None:
    unsealed = one_win(Win(winner=A, how=WinType.HAIDILAO))
    sealed = one_win(Win(winner=A, how=WinType.HAIDILAO, sealed=C))
    assert paid(sealed) == {(C, A): sum(paid(unsealed).values())}


@pytest.mark.parametrize(
    "chain",
    [(Kong(A, KongKind.AN),), (Kong(A, KongKind.MING, D), Kong(A, KongKind.AN))],
    ids=["concealed", "exposed"],
)
def test_gangkai_sealed_pays_the_whole_amount(chain: tuple[Kong, ...]) -> None:
    win = Win(winner=A, how=WinType.GANGKAI, chain_kongs=chain)
    whole = sum(paid(one_win(win)).values())
    assert paid(one_win(replace(win, sealed=B))) == {(B, A): whole}
    assert paid(one_win(replace(win, sealed=B), sisuang=True)) == {(B, A): 2 * whole}


def test_sealed_on_a_big_cannon() -> None:
    win = Win(winner=A, how=WinType.GANGPAO, discarder=C, chain=2, sealed=D)
    settlement = one_win(win)
    value = settlement.values[0].value
    assert value == 18
    assert paid(settlement) == {(C, A): value, (D, A): value}


# -- several winners, the dealer ----------------------------------------------------------


def test_several_winners_are_settled_separately() -> None:
    first = Win(winner=A, how=WinType.DIANPAO, discarder=B, qingyise=True)
    second = Win(winner=C, how=WinType.GANGPAO, discarder=B, chain=2, pattern=Pattern.PENGPENGHU)
    both = settle_hand(MahjongHand(dealer=D, wins=(first, second)))
    alone = [one_win(first, dealer=D), one_win(second, dealer=D)]
    assert both.transfers == alone[0].transfers + alone[1].transfers
    assert both.values == (alone[0].values[0], alone[1].values[0])
    assert both.next_dealer == A  # the dealer D did not win: the deal passes on


def test_dealer_among_several_winners_keeps_the_deal() -> None:
    wins = (
        Win(winner=A, how=WinType.DIANPAO, discarder=B),
        Win(winner=C, how=WinType.DIANPAO, discarder=B),
    )
    assert settle_hand(MahjongHand(dealer=C, wins=wins)).next_dealer == C


@pytest.mark.parametrize(
    ("dealer", "winner", "expected"), [(A, A, A), (A, B, B), (D, A, A), (D, D, D), (C, D, D)]
)
def test_next_dealer(dealer: int, winner: int, expected: int) -> None:
    assert one_win(Win(winner=winner, how=WinType.ZIMO), dealer=dealer).next_dealer == expected


def test_renhu_is_paid_by_the_dealer() -> None:
    settlement = one_win(Win(winner=B, how=WinType.RENHU), dealer=D)
    assert paid(settlement) == {(D, B): 12}
    assert settlement.next_dealer == A


# -- normalisation and formulas -----------------------------------------------------------


def test_quanqiuren_on_a_discard_is_pengpenghu_times_two() -> None:
    value = hand_value(Win(winner=A, how=WinType.DIANPAO, discarder=B, quanqiuren=True), A)
    assert (value.pattern, value.quanqiuren, value.k, value.value) == (
        Pattern.PENGPENGHU,
        True,
        4,
        18,
    )
    assert value.formula == Formula.BIG_PAO


def test_self_drawn_quanqiuren_scores_as_pengpenghu() -> None:
    drawn = hand_value(Win(winner=A, how=WinType.ZIMO, quanqiuren=True, qingyise=True), A)
    plain = hand_value(
        Win(winner=A, how=WinType.ZIMO, pattern=Pattern.PENGPENGHU, qingyise=True), A
    )
    assert drawn == plain
    assert not drawn.quanqiuren


@pytest.mark.parametrize(
    ("win", "dealer"),
    [
        (Win(winner=A, how=WinType.TIANHU), A),
        (Win(winner=B, how=WinType.DIHU), A),
        (Win(winner=B, how=WinType.RENHU), A),
        (Win(winner=A, how=WinType.DIANPAO, discarder=B, pattern=Pattern.QIDUI), A),
    ],
)
def test_always_menqing(win: Win, dealer: int) -> None:
    value = hand_value(win, dealer)
    assert value.menqing
    assert value.base == 4
    assert value == hand_value(replace(win, menqing=True), dealer)


def test_small_and_big_pao() -> None:
    small = hand_value(Win(winner=A, how=WinType.DIANPAO, discarder=B), A)
    big = hand_value(Win(winner=A, how=WinType.DIANPAO, discarder=B, qingyise=True), A)
    assert (small.formula, small.value) == (Formula.SMALL_PAO, 2)
    assert (big.formula, big.k, big.unit, big.value) == (Formula.BIG_PAO, 2, 6, 9)


def test_gangkai_exposed_chain_is_paid_by_the_first_konged_player() -> None:
    chain = (Kong(A, KongKind.AN), Kong(A, KongKind.BU, D), Kong(A, KongKind.MING, C))
    settlement = one_win(Win(winner=A, how=WinType.GANGKAI, chain_kongs=chain))
    value = settlement.values[0]
    assert (value.formula, value.chain) == (Formula.GANGKAI_EXPOSED, 3)
    assert paid(settlement) == {(D, A): 2**3 * 3 * 3 + 3}


def test_gangkai_chain_count_may_be_given() -> None:
    chain = (Kong(A, KongKind.AN), Kong(A, KongKind.AN))
    win = Win(winner=A, how=WinType.GANGKAI, chain_kongs=chain)
    assert hand_value(replace(win, chain=2), A) == hand_value(win, A)


def test_qianggang_with_the_robbed_chain() -> None:
    chain = (Kong(B, KongKind.MING, C), Kong(B, KongKind.BU, A))
    win = Win(winner=A, how=WinType.QIANGGANG, discarder=B, chain=2, chain_kongs=chain)
    assert paid(one_win(win)) == {(B, A): 18}
