"""The hand generator (tests/tiles_generator.py), and every mahjong golden case written as tiles:
the tiles' reading settles exactly as the case's pattern, groups and flags do."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from scoring import Pattern, WinReason, WinType, hand_value, settle_hand
from scoring.tiles import MeldKind, parse_tiles, read_tiles
from tests.tiles_generator import Built, Impossible, build_hand, write
from tests.unit.test_mahjong_golden import CASES, WINNER, build, expected

SHAPES = [(Pattern.JIHU, 0), (Pattern.PENGPENGHU, 0), *((Pattern.QIDUI, g) for g in range(4))]

#: Golden cases whose kongs no hand of tiles can hold with their flags: 鸡胡 not 门清 with three
#: concealed kongs (an exposed group, three kongs and a run are five melds), 碰碰胡 not 门清 with
#: four (four concealed kongs are 门清). The seed prints them as arithmetic; their tiles are
#: built without the chain's kongs (u does not depend on them), the chain stays as recorded.
UNREALISABLE_KONGS = {"M063", "M065", "M071", "M073"}


def asked(pattern: Pattern, groups: int, qys: bool, mq: bool, qqr: bool) -> tuple[object, ...]:
    """What a hand built for these words reads as (全求人 is 碰碰胡; 七对 is 门清)."""
    if qqr:
        pattern = Pattern.PENGPENGHU
    return (pattern, groups, qys, mq or pattern == Pattern.QIDUI, qqr)


def kong_kinds(built: Built) -> Counter[bool]:
    """Exposed (True) and concealed (False) kongs of a built hand."""
    exposed = sum(size == 4 for _, size in built.exposed)
    return Counter({True: exposed, False: len(built.concealed_kongs)})


def test_generator_builds_what_is_asked() -> None:
    rng = random.Random(20240601)
    built_kinds = 0
    for (pattern, groups), qys, mq, qqr, an, ming in itertools.product(
        SHAPES, *[(False, True)] * 3, range(5), range(5)
    ):
        try:
            build_hand(
                rng, pattern, groups, qingyise=qys, menqing=mq, quanqiuren=qqr,
                concealed_kongs=an, exposed_kongs=ming,
            )  # fmt: skip
        except Impossible:
            continue
        built_kinds += 1
        # Four exposed kongs without 全求人 is a self-drawn win (on a discard it is 全求人).
        how = WinType.ZIMO if ming == 4 and not qqr else WinType.DIANPAO
        for _ in range(15):
            built = build_hand(
                rng, pattern, groups, qingyise=qys, menqing=mq, quanqiuren=qqr,
                concealed_kongs=an, exposed_kongs=ming,
            )  # fmt: skip
            assert max(built.counts().values()) <= 4
            text = write(built, rng)
            read = read_tiles(text, how)
            best = read.best
            got = (best.pattern, best.groups, best.qingyise, best.menqing, best.quanqiuren)
            assert got == asked(pattern, groups, qys, mq, qqr), text
            assert Counter(k.exposed for k in read.kongs) == kong_kinds(built), text
            runs = sum(meld.kind == MeldKind.RUN for meld in best.melds)
            assert runs == built.runs or pattern != Pattern.JIHU, text
    assert built_kinds == 100  # of 1,200 combinations asked


def test_generator_refuses_what_no_hand_is() -> None:
    rng = random.Random(1)
    for kwargs in [
        {"pattern": Pattern.QIDUI, "concealed_kongs": 1},
        {"pattern": Pattern.QIDUI, "quanqiuren": True},
        {"pattern": Pattern.PENGPENGHU, "quanqiuren": True, "menqing": True},
        {"pattern": Pattern.PENGPENGHU, "quanqiuren": True, "concealed_kongs": 1},
        {"pattern": Pattern.JIHU, "menqing": True, "exposed_kongs": 1},
        {"pattern": Pattern.JIHU, "concealed_kongs": 4},
        {"pattern": Pattern.JIHU, "concealed_kongs": 3},  # not 门清: an exposed group too
    ]:
        with pytest.raises(Impossible):
            build_hand(rng, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("style", ["compact", "spaced", "unicode"])
def test_every_style_writes_the_same_tiles(style: str) -> None:
    rng = random.Random(style)
    for _ in range(200):
        menqing = rng.randrange(100) < 30
        built = build_hand(
            rng, rng.choice([Pattern.JIHU, Pattern.PENGPENGHU]), menqing=menqing,
            concealed_kongs=rng.randint(0, 1), exposed_kongs=0 if menqing else rng.randint(0, 1),
        )  # fmt: skip
        hand = parse_tiles(write(built, rng, style))
        tiles = Counter(hand.concealed)
        for meld in hand.declared:
            tiles.update(meld.tiles)
        assert sum(tiles.values()) == 14 + len(hand.kongs)
        assert len(hand.declared) == len(built.exposed) + len(built.concealed_kongs)
        assert sorted(str(t) for t in hand.concealed) == sorted(
            f"{i % 9 + 1}{'mpsz'[i // 9]}" for i in built.concealed
        )


def tiles_for(case: dict[str, Any], rng: random.Random) -> str:
    """The case's hand as tiles, with the chain's kongs where a hand can hold them."""
    how = WinType(case["win"])
    kongs = case.get("kongs", [])
    words: dict[str, Any] = {
        "pattern": Pattern(case["pattern"]),
        "groups": case.get("groups", 0),
        "qingyise": case["qingyise"],
        # 天胡, 地胡, 人胡 are 门清 whatever the words said: their tiles show no group.
        "menqing": case["menqing"] or how.always_concealed,
        "quanqiuren": case["quanqiuren"],
    }
    try:
        built = build_hand(
            rng, **words, concealed_kongs=kongs.count("an"), exposed_kongs=kongs.count("ming")
        )
        assert case["id"] not in UNREALISABLE_KONGS
    except Impossible:
        assert case["id"] in UNREALISABLE_KONGS
        built = build_hand(rng, **words)
    return write(built, rng)


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_golden_case_from_tiles(case: dict[str, Any]) -> None:
    rng = random.Random(case["id"])
    hand = build(case)
    win = hand.wins[0]
    for _ in range(5):
        text = tiles_for(case, rng)
        read = read_tiles(text, win.how)
        from_tiles = read.best.apply(win)
        assert hand_value(from_tiles, hand.dealer).unit == hand_value(win, hand.dealer).unit, text
        settled = settle_hand(replace(hand, wins=(from_tiles,)))
        paid: Counter[int] = Counter()
        for transfer in settled.transfers:
            assert transfer.payee == WINNER and isinstance(transfer.reason, WinReason)
            paid[transfer.payer] += transfer.amount
        assert paid == expected(case["pays"]), text
        if case["id"] not in UNREALISABLE_KONGS:
            kinds = sorted("ming" if k.exposed else "an" for k in read.kongs)
            assert kinds == sorted(case.get("kongs", [])), text
