"""Every impossible or contradictory mahjong input is refused with its own error code."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scoring import (
    ERROR_CODES,
    MAHJONG_ERRORS,
    Kong,
    KongKind,
    MahjongHand,
    Pattern,
    ScoringError,
    Win,
    WinType,
    hand_value,
    settle_hand,
)
from scoring.mahjong_checks import menqing_unsaid

AN, MING, BU = KongKind.AN, KongKind.MING, KongKind.BU
PAO = Win(winner=0, how=WinType.DIANPAO, discarder=1)
ZIMO = Win(winner=0, how=WinType.ZIMO)
GANGKAI = Win(winner=0, how=WinType.GANGKAI, chain_kongs=(Kong(0, AN),))
ROB = Win(winner=0, how=WinType.QIANGGANG, discarder=1)


def hand(*wins: Win, dealer: int = 0, kongs: tuple[Kong, ...] = ()) -> MahjongHand:
    return MahjongHand(dealer=dealer, wins=wins, kongs=kongs)


CASES: list[tuple[str, MahjongHand]] = [
    ("seat_range", hand(replace(PAO, winner=4))),
    ("seat_range", hand(replace(PAO, discarder=-1))),
    ("seat_range", hand(PAO, dealer=5)),
    ("seat_range", hand(replace(PAO, sealed=7))),
    ("seat_range", hand(kongs=(Kong(4, AN),))),
    ("seat_range", hand(kongs=(Kong(1, MING, 4),))),
    ("seat_range", hand(replace(GANGKAI, chain_kongs=(Kong(0, BU, 9),)))),
    ("pays_himself", hand(replace(PAO, discarder=0))),
    ("pays_himself", hand(kongs=(Kong(1, MING, 1),))),
    ("pays_himself", hand(replace(PAO, discarder=2, sealed=0))),
    ("pays_himself", hand(replace(GANGKAI, chain_kongs=(Kong(0, MING, 0),)))),
    ("discarder_missing", hand(replace(PAO, discarder=None))),
    ("discarder_missing", hand(replace(ROB, discarder=None))),
    ("discarder_missing", hand(Win(winner=0, how=WinType.HAIDIPAO))),
    ("discarder_self_draw", hand(replace(ZIMO, discarder=1))),
    ("discarder_self_draw", hand(replace(GANGKAI, discarder=1))),
    ("discarder_self_draw", hand(Win(winner=1, how=WinType.DIHU, discarder=0))),
    ("renhu_discarder", hand(Win(winner=0, how=WinType.RENHU, discarder=2), dealer=1)),
    ("tianhu_not_dealer", hand(Win(winner=0, how=WinType.TIANHU), dealer=1)),
    ("dihu_dealer", hand(Win(winner=0, how=WinType.DIHU))),
    ("renhu_dealer", hand(Win(winner=0, how=WinType.RENHU))),
    ("chain_range", hand(replace(ROB, how=WinType.GANGPAO, chain=0))),
    ("chain_range", hand(replace(ROB, how=WinType.GANGPAO, chain=5))),
    ("chain_range", hand(replace(ROB, chain=5))),
    ("chain_range", hand(replace(GANGKAI, chain_kongs=(Kong(0, AN),) * 5))),
    ("chain_not_applicable", hand(replace(PAO, chain=2))),
    ("chain_not_applicable", hand(replace(ZIMO, chain_kongs=(Kong(0, AN),)))),
    ("chain_not_applicable", hand(replace(ROB, how=WinType.GANGPAO, chain_kongs=(Kong(1, AN),)))),
    ("chain_mismatch", hand(replace(GANGKAI, chain=3, chain_kongs=(Kong(0, AN),) * 2))),
    ("chain_mismatch", hand(replace(ROB, chain=2, chain_kongs=(Kong(1, BU, 2),)))),
    ("gangkai_no_kongs", hand(replace(GANGKAI, chain_kongs=()))),
    ("chain_konger", hand(replace(GANGKAI, chain_kongs=(Kong(0, AN), Kong(2, AN))))),
    ("menqing_exposed_kong", hand(replace(GANGKAI, menqing=True, chain_kongs=(Kong(0, BU, 1),)))),
    ("rob_konger", hand(replace(ROB, chain_kongs=(Kong(2, BU, 1),)))),
    ("rob_concealed", hand(replace(ROB, chain=2, chain_kongs=(Kong(1, AN), Kong(1, BU, 2))))),
    ("rob_not_added", hand(replace(ROB, chain_kongs=(Kong(1, MING, 2),)))),
    ("kong_source_missing", hand(kongs=(Kong(1, MING),))),
    ("kong_source_missing", hand(replace(GANGKAI, chain_kongs=(Kong(0, BU),)))),
    ("kong_source_given", hand(kongs=(Kong(1, AN, 2),))),
    ("qidui_groups", hand(replace(PAO, pattern=Pattern.QIDUI, groups=4))),
    ("qidui_groups", hand(replace(PAO, pattern=Pattern.QIDUI, groups=-1))),
    ("groups_not_qidui", hand(replace(PAO, groups=1))),
    ("groups_not_qidui", hand(replace(PAO, pattern=Pattern.PENGPENGHU, groups=2))),
    ("qidui_quanqiuren", hand(replace(PAO, pattern=Pattern.QIDUI, quanqiuren=True))),
    ("quanqiuren_menqing", hand(replace(PAO, quanqiuren=True, menqing=True))),
    ("quanqiuren_menqing", hand(Win(winner=0, how=WinType.TIANHU, quanqiuren=True))),
    ("sealed_menqing", hand(replace(ZIMO, menqing=True, sealed=1))),
    ("sealed_qidui", hand(replace(ZIMO, pattern=Pattern.QIDUI, sealed=1))),
    ("sealed_special", hand(Win(winner=0, how=WinType.TIANHU, sealed=1))),
    ("sealed_special", hand(Win(winner=0, how=WinType.RENHU, sealed=2), dealer=1)),
    ("multi_win_not_discard", hand(PAO, Win(winner=2, how=WinType.ZIMO))),
    ("multi_win_discarder", hand(PAO, Win(winner=2, how=WinType.DIANPAO, discarder=3))),
    ("multi_win_discarder", hand(PAO, Win(winner=2, how=WinType.RENHU), dealer=3)),
    ("multi_win_same_winner", hand(PAO, replace(PAO, how=WinType.GANGPAO))),
    ("kong_menqing", hand(replace(ZIMO, menqing=True), kongs=(Kong(0, MING, 1),))),
    ("kong_menqing", hand(replace(PAO, menqing=True), kongs=(Kong(2, AN), Kong(0, BU, 3)))),
    ("kong_menqing", hand(replace(GANGKAI, menqing=True), kongs=(Kong(0, BU, 3),))),
    ("kong_qidui", hand(replace(PAO, pattern=Pattern.QIDUI), kongs=(Kong(0, AN),))),
    ("kong_qidui", hand(replace(PAO, pattern=Pattern.QIDUI, groups=1), kongs=(Kong(0, BU, 1),))),
    ("kong_qidui", hand(replace(GANGKAI, pattern=Pattern.QIDUI))),
    ("kong_special", hand(Win(winner=0, how=WinType.TIANHU), kongs=(Kong(0, AN),))),
    ("kong_special", hand(Win(winner=1, how=WinType.DIHU), kongs=(Kong(1, MING, 2),))),
    ("kong_special", hand(Win(winner=1, how=WinType.RENHU), kongs=(Kong(1, AN),))),
    ("kong_quanqiuren", hand(replace(PAO, quanqiuren=True), kongs=(Kong(0, AN),))),
    ("kong_quanqiuren", hand(replace(GANGKAI, quanqiuren=True))),
    (
        "sealed_winner",
        hand(replace(PAO, sealed=2), Win(winner=2, how=WinType.DIANPAO, discarder=1)),
    ),
]


@pytest.mark.parametrize(
    ("code", "bad"), CASES, ids=[f"{i:02d}-{c[0]}" for i, c in enumerate(CASES)]
)
def test_refused_with_its_code(code: str, bad: MahjongHand) -> None:
    with pytest.raises(ScoringError) as caught:
        settle_hand(bad)
    assert caught.value.code == code
    assert code in MAHJONG_ERRORS
    assert str(caught.value)  # an English message naming the problem
    assert caught.value.params


def test_every_code_is_exercised() -> None:
    assert {code for code, _ in CASES} == set(MAHJONG_ERRORS)
    assert set(MAHJONG_ERRORS) <= set(ERROR_CODES)


@pytest.mark.parametrize(
    ("code", "bad"), [c for c in CASES if len(c[1].wins) == 1 and not c[1].kongs]
)
def test_hand_value_validates_the_clause(code: str, bad: MahjongHand) -> None:
    with pytest.raises(ScoringError) as caught:
        hand_value(bad.wins[0], bad.dealer)
    assert caught.value.code == code


def test_renhu_paid_by_given_dealer_is_valid() -> None:
    settle_hand(hand(Win(winner=0, how=WinType.RENHU, discarder=1), dealer=1))


def test_sealed_player_may_deal_in_among_several_winners() -> None:
    wins = (replace(PAO, sealed=1), Win(winner=2, how=WinType.DIANPAO, discarder=1))
    assert len(settle_hand(hand(*wins)).transfers) == 3


def test_kongs_of_others_do_not_contradict_the_winner() -> None:
    """Only the winner's own kongs count: another's exposed kong leaves his 门清 or 七对."""
    others = (Kong(1, MING, 2), Kong(2, AN), Kong(3, BU, 0))
    for win in (
        replace(ZIMO, menqing=True),
        replace(PAO, pattern=Pattern.QIDUI),
        Win(winner=0, how=WinType.TIANHU),
        replace(PAO, quanqiuren=True),
    ):
        settle_hand(hand(win, kongs=others))


def test_a_concealed_kong_keeps_menqing_and_an_exposed_one_keeps_quanqiuren() -> None:
    settle_hand(hand(replace(ZIMO, menqing=True), kongs=(Kong(0, AN),)))
    settle_hand(hand(replace(PAO, quanqiuren=True), kongs=(Kong(0, MING, 2), Kong(0, BU, 3))))


def test_a_robbed_kong_is_the_robbed_players_not_the_winners() -> None:
    robbed = replace(ROB, menqing=True, chain_kongs=(Kong(1, BU, 2),))
    settle_hand(hand(robbed))


@pytest.mark.parametrize(
    ("win", "kongs", "unsaid"),
    [
        (ZIMO, (), True),
        (ZIMO, (Kong(0, AN), Kong(1, MING, 2)), True),
        (ZIMO, (Kong(0, MING, 2),), False),
        (replace(ZIMO, menqing=True), (), False),
        (replace(PAO, pattern=Pattern.QIDUI), (), False),
        (Win(winner=0, how=WinType.TIANHU), (), False),
        (replace(PAO, quanqiuren=True), (), False),
        (replace(ZIMO, sealed=2), (), False),
        (replace(GANGKAI, chain_kongs=(Kong(0, BU, 1),)), (), False),
        (GANGKAI, (), True),
    ],
)
def test_menqing_unsaid_only_when_it_was_possible(
    win: Win, kongs: tuple[Kong, ...], unsaid: bool
) -> None:
    h = hand(win, kongs=kongs)
    settle_hand(h)
    assert menqing_unsaid(h, win) is unsaid
