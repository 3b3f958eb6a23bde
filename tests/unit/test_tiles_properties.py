"""Properties of reading hands from tiles (hypothesis): built hands read back as built (or as
something scoring at least as much), and tiles are refused exactly when a brute-force search,
written here apart from scoring.tiles, finds no way to read them."""

from __future__ import annotations

import random
from collections import Counter

from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

from scoring import Pattern, ScoringError, Win, WinType, hand_value
from scoring.tiles import Meld, MeldKind, Reading, read_tiles
from scoring.tiles_model import TILES
from tests.tiles_generator import RUN_STARTS, Built, write

SPECIAL = (WinType.TIANHU, WinType.DIHU, WinType.RENHU)
ORDINARY = tuple(how for how in WinType if how not in SPECIAL)

# Where tiles are drawn from: anywhere, one suit (清一色, many readings), or a narrow window of
# one suit and two honours (many copies of few tiles: the hardest shapes).
POOLS = st.one_of(
    st.just(list(range(34))),
    st.integers(0, 2).map(lambda suit: list(range(9 * suit, 9 * suit + 9))),
    st.tuples(st.integers(0, 22), st.integers(27, 32)).map(
        lambda p: [*range(p[0], p[0] + 5), p[1], p[1] + 1]
    ),
)


def value(how: WinType, pattern: Pattern, groups: int, qys: bool, mq: bool, qqr: bool) -> int:
    """u of what a hand was built as, from the valuation."""
    valued = WinType.ZIMO if how == WinType.GANGKAI else how  # u does not depend on kongs
    win = Win(0, valued, 1 if valued.needs_discarder else None, pattern, groups, qys, mq, qqr)
    dealer = 1 if how in (WinType.DIHU, WinType.RENHU) else 0
    return hand_value(win, dealer).unit


def one_suit(counts: Counter[int]) -> bool:
    return len({t // 9 for t in counts}) == 1 and max(counts) < 27


@st.composite
def melded_hands(draw: st.DrawFn, declared: bool = True) -> tuple[Built, list[Meld], WinType]:
    """Random exposed pungs/kongs, concealed kongs, concealed pungs/runs and a pair (≤4 each);
    without exposed groups or kongs unless `declared`."""
    pool = draw(POOLS)
    starts = [t for t in pool if t in RUN_STARTS] or [None]
    exposed = draw(st.integers(0, 4 if declared else 0))
    an = draw(st.integers(0, 4 - exposed if declared else 0))
    shown = tuple(
        (draw(st.sampled_from(pool)), draw(st.sampled_from((3, 4)))) for _ in range(exposed)
    )
    kongs = tuple(draw(st.sampled_from(pool)) for _ in range(an))
    melds = [Meld(MeldKind.PUNG if n == 3 else MeldKind.KONG, TILES[t], True) for t, n in shown]
    melds += [Meld(MeldKind.KONG, TILES[t]) for t in kongs]
    concealed: list[int] = []
    for _ in range(4 - exposed - an):
        start = draw(st.sampled_from(starts))
        if start is not None and draw(st.booleans()):
            concealed += [start, start + 1, start + 2]
            melds.append(Meld(MeldKind.RUN, TILES[start]))
        else:
            tile = draw(st.sampled_from(pool))
            concealed += [tile] * 3
            melds.append(Meld(MeldKind.PUNG, TILES[tile]))
    pair = draw(st.sampled_from(pool))
    concealed += [pair, pair]
    melds.append(Meld(MeldKind.PAIR, TILES[pair]))
    built = Built(shown, kongs, tuple(sorted(concealed)), 0)
    assume(max(built.counts().values()) <= 4)
    how = draw(st.sampled_from(ORDINARY if shown or kongs else tuple(WinType)))
    return built, melds, how


@given(melded_hands(), st.randoms(use_true_random=False))
def test_melded_hands_read_as_built(
    hand: tuple[Built, list[Meld], WinType], rng: random.Random
) -> None:
    built, melds, how = hand
    read = read_tiles(write(built, rng), how)
    counts = built.counts()
    exposed = len(built.exposed)
    pattern = Pattern.JIHU if any(m.kind == MeldKind.RUN for m in melds) else Pattern.PENGPENGHU
    facts = (pattern, 0, one_suit(counts), exposed == 0, exposed == 4 and not how.self_drawn)
    assert read.best.unit >= value(how, *facts)
    same = [r for r in read.readings if Counter(r.melds) == Counter(melds)]
    assert len(same) == 1
    assert (same[0].pattern, same[0].groups, same[0].qingyise, same[0].menqing) == facts[:4]
    assert same[0].quanqiuren == facts[4]
    for reading in read.readings:
        assert tiles_of(reading) == counts


def tiles_of(reading: Reading) -> Counter[int]:
    index = {tile: i for i, tile in enumerate(TILES)}
    return Counter(index[tile] for meld in reading.melds for tile in meld.tiles)


@st.composite
def seven_pairs(draw: st.DrawFn) -> tuple[Built, int]:
    pool = draw(POOLS.filter(lambda p: len(p) >= 7))
    groups = draw(st.integers(0, 3))
    kinds = draw(
        st.lists(st.sampled_from(pool), min_size=7 - groups, max_size=7 - groups, unique=True)
    )
    tiles = [t for t in kinds[:groups] for _ in range(4)] + [
        t for t in kinds[groups:] for _ in range(2)
    ]
    return Built((), (), tuple(sorted(tiles)), 0), groups


@given(seven_pairs(), st.sampled_from(tuple(WinType)), st.randoms(use_true_random=False))
def test_seven_pairs_read_as_built(
    hand: tuple[Built, int], how: WinType, rng: random.Random
) -> None:
    built, groups = hand
    best = read_tiles(write(built, rng), how).best
    assert (best.pattern, best.groups, best.menqing, best.quanqiuren) == (
        Pattern.QIDUI,
        groups,
        True,
        False,
    )
    assert best.qingyise == one_suit(built.counts())
    assert tiles_of(best) == built.counts()


# --- refusals against a brute-force search ---


def candidate_melds(tiles: Counter[int]) -> list[Counter[int]]:
    """Every pung and run the tiles could hold."""
    out = [Counter({t: 3}) for t in tiles if tiles[t] >= 3]
    out += [Counter(range(s, s + 3)) for s in RUN_STARTS if all(tiles[s + k] for k in range(3))]
    return out


def four_melds(rest: Counter[int], melds: list[Counter[int]], left: int, start: int) -> bool:
    if left == 0:
        return not +rest
    return any(
        all(rest[t] >= n for t, n in melds[k].items())
        and four_melds(rest - melds[k], melds, left - 1, k)
        for k in range(start, len(melds))
    )


def brute_force_wins(tiles: Counter[int]) -> bool:
    """Seven pairs (a four is two pairs), or some pair and four pungs/runs (candidates tried
    in every combination) that use up exactly the 14 tiles."""
    if all(n in (2, 4) for n in tiles.values()):
        return True
    melds = candidate_melds(tiles)
    for pair in [t for t in tiles if tiles[t] >= 2]:
        if four_melds(tiles - Counter({pair: 2}), melds, 4, 0):
            return True
    return False


def fourteen(pool: list[int]) -> st.SearchStrategy[list[int]]:
    return st.lists(st.sampled_from(pool), min_size=14, max_size=14).filter(
        lambda ts: max(Counter(ts).values()) <= 4
    )


@st.composite
def near_misses(draw: st.DrawFn) -> list[int]:
    """A concealed winning hand with one tile changed."""
    built, _, _ = draw(melded_hands(declared=False))
    tiles = list(built.concealed)
    tiles[draw(st.integers(0, 13))] = draw(st.integers(0, 33))
    assume(max(Counter(tiles).values()) <= 4)
    return tiles


CONCEALED_WINS = melded_hands(declared=False).map(lambda hand: list(hand[0].concealed))


@settings(max_examples=500)
@given(
    st.one_of(POOLS.flatmap(fourteen), near_misses(), CONCEALED_WINS),
    st.randoms(use_true_random=False),
)
def test_refused_exactly_when_no_reading_exists(tiles: list[int], rng: random.Random) -> None:
    counts = Counter(tiles)
    text = write(Built((), (), tuple(sorted(tiles)), 0), rng)
    try:
        read = read_tiles(text, WinType.ZIMO)
    except ScoringError as error:
        event("refused")
        assert error.code == "tiles_not_winning"
        assert not brute_force_wins(counts)
        left = Counter(error.params["left"].split())  # type: ignore[union-attr]
        assert left <= Counter(str(TILES[t]) for t in tiles) and left.total() >= 2
    else:
        event("read")
        assert brute_force_wins(counts)
        for reading in read.readings:
            assert tiles_of(reading) == counts
