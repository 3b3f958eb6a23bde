"""Reading hands from tiles, cross-checked against PyMahjongGB's fan calculator (GB, 国标麻将).

On 12,000 generated winning hands (the generator's patterns and flags, and random melds) the
facts both rule sets mean the same way must agree: 七对 seven pairs, 清一色 full flush,
碰碰和 all pungs, 门前清 concealed hand (GB: 门前清 on a discard, 不求人 self-drawn) and
全求人 (four melds exposed, won on a discard). And on 3,000 concealed multisets of 14 tiles,
mostly near misses, GB wins exactly where we read a hand, but for its own special shapes.

Where the rule sets differ on purpose, the comparison is restricted:
- GB has chow; this rule set has none. Hands here have runs only in the concealed part, where
  both split the tiles the same way: the two sets of splits are the same.
- GB scores the split worth the most fan, we the one worth the most points, and a split has
  several of our facts at once (111222333m is 碰碰和 or three runs): so GB reporting a fact
  means we have a reading with it, and a fact of every reading of ours (no run anywhere: all
  pungs) must be reported by GB. Likewise GB counts 七对 only when no regular split is worth
  more (一色四同顺 11112222333344m, 一色双龙会): then we must have a regular reading too.
- GB fans that exclude ours (不计): 连七对 replaces 七对 and, with 九莲宝灯 and 一色双龙会,
  excludes 清一色; 碰碰和 is not counted with 四杠, 大四喜, 清幺九, 字一色, 四暗刻, 一色四节高,
  混幺九, 全双刻; 门前清/不求人 not with 七对, 连七对, 九莲宝灯, 四暗刻. 七对 is 门清 here, and
  in GB it excludes 门前清: for seven pairs 门清 is not compared.
- GB's 十三幺, 全不靠, 七星不靠 and 组合龙 are no hand here (these rules have no such shapes).
- GB's minimum of 8 fan is a table rule its calculator does not apply; flowers, winds and the
  winning tile's fans (独听, 和绝张) play no part here.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from MahjongGB import MahjongFanCalculator

from scoring import Pattern, ScoringError, WinType
from scoring.tiles import TilesReading, read_tiles
from tests.tiles_generator import RUN_STARTS, Built, Impossible, build_hand, write

HANDS, MULTISETS = 12_000, 3_000
SEVEN_PAIRS = {"七对", "连七对"}
FLUSH_EXCLUDED_BY = {"连七对", "九莲宝灯", "一色双龙会"}
PUNGS_EXCLUDED_BY = {
    "四杠",
    "大四喜",
    "清幺九",
    "字一色",
    "四暗刻",
    "一色四节高",
    "混幺九",
    "全双刻",
}
CONCEALED_EXCLUDED_BY = {"七对", "连七对", "九莲宝灯", "四暗刻"}
GB_ONLY_SHAPES = {"十三幺", "全不靠", "七星不靠", "组合龙"}


def gb_tile(tile: int) -> str:
    """GB's code: W characters (m), B dots (p), T bamboo (s), F1-4 winds, J1-3 中 发 白."""
    if tile >= 27:
        return f"F{tile - 26}" if tile < 31 else f"J{tile - 30}"
    return "WBT"[tile // 9] + str(tile % 9 + 1)


def gb_fans(built: Built, self_drawn: bool, rng: random.Random) -> set[str] | None:
    """GB's fan names for the hand (a random concealed tile is the winning tile), or None when
    GB finds no winning hand."""
    pack = [
        ("GANG" if size == 4 else "PENG", gb_tile(t), rng.randint(1, 3))
        for t, size in built.exposed
    ]
    pack += [("GANG", gb_tile(t), 0) for t in built.concealed_kongs]  # offer 0: concealed
    hand = list(built.concealed)
    win = hand.pop(rng.randrange(len(hand)))
    try:
        fans = MahjongFanCalculator(
            pack=tuple(pack),
            hand=tuple(gb_tile(t) for t in hand),
            winTile=gb_tile(win),
            flowerCount=0,
            isSelfDrawn=self_drawn,
            is4thTile=False,
            isAboutKong=False,
            isWallLast=False,
            seatWind=0,
            prevalentWind=0,
        )
    except TypeError as error:
        assert str(error) == "ERROR_NOT_WIN"
        return None
    return {name for _, name in fans}


def random_melds(rng: random.Random) -> Built:
    """Random exposed pungs/kongs, concealed kongs, concealed pungs or runs and a pair, drawn
    from all tiles or a few (many copies: the shapes with several readings)."""
    while True:
        if rng.randrange(100) < 50:
            pool = list(range(34))
        else:
            first = rng.randrange(23)
            pool = [*range(first, first + 5), *rng.sample(range(27, 34), 2)]
        starts = [t for t in pool if t in RUN_STARTS]
        exposed = rng.choice((0, 0, 1, 2, 3, 4))
        an = rng.randint(0, min(2, 4 - exposed))
        shown = tuple((rng.choice(pool), rng.choice((3, 3, 4))) for _ in range(exposed))
        kongs = tuple(rng.choice(pool) for _ in range(an))
        concealed: list[int] = []
        for _ in range(4 - exposed - an):
            if starts and rng.randrange(100) < 60:
                start = rng.choice(starts)
                concealed += [start, start + 1, start + 2]
            else:
                concealed += [rng.choice(pool)] * 3
        concealed += [rng.choice(pool)] * 2
        built = Built(shown, kongs, tuple(sorted(concealed)), 0)
        if max(built.counts().values()) <= 4:
            return built


def random_pattern(rng: random.Random) -> Built:
    """A hand from the generator for random pattern, groups, flags and kongs."""
    while True:
        pattern = rng.choice(list(Pattern))
        try:
            return build_hand(
                rng,
                pattern,
                rng.randint(0, 3) if pattern == Pattern.QIDUI else 0,
                qingyise=rng.randrange(100) < 40,
                menqing=rng.randrange(100) < 40,
                quanqiuren=rng.randrange(100) < 15,
                concealed_kongs=rng.choice((0, 0, 0, 1, 2)),
                exposed_kongs=rng.choice((0, 0, 0, 1, 2)),
            )
        except Impossible:
            continue


def compare(read: TilesReading, fans: set[str], self_drawn: bool) -> None:
    """The facts agree as the module docstring says."""
    readings = read.readings
    best = read.best
    ours_pairs = any(r.pattern == Pattern.QIDUI for r in readings)
    ours_regular = [r for r in readings if r.pattern != Pattern.QIDUI]
    # 七对
    if fans & SEVEN_PAIRS:
        assert ours_pairs
    elif ours_pairs:
        assert ours_regular  # GB found a regular split worth more fan
    # 清一色
    assert best.qingyise == bool(fans & ({"清一色"} | FLUSH_EXCLUDED_BY))
    # 碰碰和
    if "碰碰和" in fans:
        assert any(r.pattern == Pattern.PENGPENGHU for r in readings)
    only_pungs = all(r.pattern == Pattern.PENGPENGHU for r in ours_regular)
    if ours_regular and only_pungs and not fans & SEVEN_PAIRS:
        assert "碰碰和" in fans or fans & PUNGS_EXCLUDED_BY
    # 门前清 / 不求人
    gb_concealed = ("不求人" if self_drawn else "门前清") in fans
    assert not ({"门前清", "不求人"} & fans) or best.menqing
    if best.menqing and not fans & CONCEALED_EXCLUDED_BY:
        assert gb_concealed
    # 全求人
    assert ("全求人" in fans) == best.quanqiuren


def test_facts_agree_with_gb_on_generated_hands() -> None:
    rng = random.Random(20260801)
    seen: Counter[str] = Counter()
    for n in range(HANDS):
        built = random_pattern(rng) if n % 2 else random_melds(rng)
        self_drawn = rng.randrange(100) < 50
        read = read_tiles(write(built, rng), WinType.ZIMO if self_drawn else WinType.DIANPAO)
        fans = gb_fans(built, self_drawn, rng)
        assert fans is not None, write(built, rng, "compact")
        try:
            compare(read, fans, self_drawn)
        except AssertionError:
            pytest.fail(f"{write(built, rng, 'compact')} self-drawn={self_drawn}: {sorted(fans)}")
        seen.update(fans & {"七对", "清一色", "碰碰和", "门前清", "不求人", "全求人"})
    assert min(seen.values()) > HANDS // 50, seen  # every fact compared was met often


def test_gb_wins_where_we_read_a_hand() -> None:
    rng = random.Random(7)
    wins = 0
    for _ in range(MULTISETS):
        built = random_melds(rng)
        while built.exposed or built.concealed_kongs:
            built = random_melds(rng)
        tiles = list(built.concealed)
        if rng.randrange(100) < 70:
            tiles[rng.randrange(14)] = rng.randrange(34)  # a near miss, sometimes still a win
        if max(Counter(tiles).values()) > 4:
            continue
        near = Built((), (), tuple(sorted(tiles)), 0)
        fans = gb_fans(near, rng.randrange(100) < 50, random.Random(0))
        try:
            read_tiles(write(near, rng), WinType.ZIMO)
        except ScoringError as error:
            assert error.code == "tiles_not_winning"
            assert fans is None or fans & GB_ONLY_SHAPES, near
        else:
            wins += 1
            assert fans is not None, near
    assert MULTISETS // 5 < wins < MULTISETS // 2
