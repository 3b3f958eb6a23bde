"""Every figure of the mahjong seed (mahjong-golden.json) is paid exactly as printed."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from scoring import (
    Kong,
    KongKind,
    MahjongHand,
    Pattern,
    Win,
    WinReason,
    WinType,
    hand_value,
    settle_hand,
)

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "mahjong-golden.json").read_text(encoding="utf-8")
)
WINNER, PAYER = 0, 1  # the discarder / robbed player / first konged player / 人胡 dealer


def build(case: dict[str, Any]) -> MahjongHand:
    how = WinType(case["win"])
    dealer = PAYER if how in (WinType.DIHU, WinType.RENHU) else WINNER
    chain_kongs = tuple(
        Kong(WINNER, KongKind.AN) if kind == "an" else Kong(WINNER, KongKind(kind), PAYER)
        for kind in case.get("kongs", ())
    )
    win = Win(
        winner=WINNER,
        how=how,
        discarder=PAYER if how.needs_discarder else None,
        pattern=Pattern(case["pattern"]),
        groups=case.get("groups", 0),
        qingyise=case["qingyise"],
        menqing=case["menqing"],
        quanqiuren=case["quanqiuren"],
        chain=case.get("chain", 1) if how.chained else 1,
        chain_kongs=chain_kongs,
    )
    return MahjongHand(dealer=dealer, wins=(win,))


def expected(pays: dict[str, int]) -> Counter[int]:
    ((kind, amount),) = pays.items()
    payers = (1, 2, 3) if kind == "each" else (PAYER,)
    return Counter(dict.fromkeys(payers, amount))


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_golden_case(case: dict[str, Any]) -> None:
    hand = build(case)
    if "kongs" in case:
        assert len(case["kongs"]) == case["chain"]
    settlement = settle_hand(hand)
    paid: Counter[int] = Counter()
    for transfer in settlement.transfers:
        assert transfer.payee == WINNER
        assert isinstance(transfer.reason, WinReason)
        paid[transfer.payer] += transfer.amount
    assert paid == expected(case["pays"])
    assert len(settlement.transfers) == len(paid)  # one transfer per payer
    (amount,) = case["pays"].values()
    assert settlement.values == (hand_value(hand.wins[0], hand.dealer),)
    assert settlement.values[0].value == amount


def test_golden_file_has_all_cases() -> None:
    ids = [case["id"] for case in CASES]
    assert ids == [f"M{i:03d}" for i in range(1, 141)]


def test_renhu_discarder_may_be_given_as_dealer() -> None:
    for case in CASES:
        if case["win"] != "renhu":
            continue
        hand = build(case)
        given = replace(hand, wins=(replace(hand.wins[0], discarder=hand.dealer),))
        assert settle_hand(given).transfers == settle_hand(hand).transfers
