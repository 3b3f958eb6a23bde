"""Reading a mahjong hand from its tiles: every reading, the highest-scoring first.

A reading is four melds and a pair — runs only in the concealed part (no chow), the groups
written in brackets as they are — or seven pairs (nothing in brackets; a set of four identical
tiles is two pairs and counts as a group of 七大对 / 豪华 / 超级豪华). From a reading come the
pattern (鸡胡 with a run, 碰碰胡 without, 七对), 清一色 (one suit, no honours), 门清 (nothing
exposed; concealed kongs keep it) and 全求人 (four exposed groups, won on another's tile).
Readings are ranked by the unit u = b × k that `scoring.hand_value` gives them.

Typical use: `read_tiles("[777p] 123m456m789s55s", WinType.DIANPAO).best.apply(win)`, and
`check_words` when pattern or flag words were typed beside the tiles.
"""

from __future__ import annotations

from typing import Final

from scoring.mahjong import hand_value
from scoring.mahjong_model import Pattern, Win, WinType
from scoring.tiles_model import (
    INDEX,
    TILES,
    TILES_ERRORS,
    HandTiles,
    Meld,
    MeldKind,
    Reading,
    Suit,
    Tile,
    TilesReading,
    notation,
    refusal,
)
from scoring.tiles_notation import looks_like_tiles, parse_tiles

__all__ = [
    "TILES_ERRORS",
    "HandTiles",
    "Meld",
    "MeldKind",
    "Reading",
    "Suit",
    "Tile",
    "TilesReading",
    "check_words",
    "looks_like_tiles",
    "notation",
    "parse_tiles",
    "read_tiles",
]

_PAIRS: Final = tuple(Meld(MeldKind.PAIR, tile) for tile in TILES)
_PUNGS: Final = tuple(Meld(MeldKind.PUNG, tile) for tile in TILES)
_RUNS: Final = tuple(Meld(MeldKind.RUN, tile) for tile in TILES)  # only i < 27, i % 9 < 7
_JIHU, _PPH, _QIDUI = Pattern.JIHU, Pattern.PENGPENGHU, Pattern.QIDUI
_RUN = MeldKind.RUN
_UNITS: dict[tuple[WinType, Pattern, int, bool, bool, bool], int] = {}


def read_tiles(tiles: str | HandTiles, how: WinType) -> TilesReading:
    """Every reading of `tiles` (notation or parsed) for a win made `how`, best first.

    Refuses (ScoringError, codes in `TILES_ERRORS`) what `parse_tiles` refuses, tiles that are
    no winning hand (`tiles_not_winning`, naming the tiles left over by the closest reading),
    and exposed groups or kongs in a 天胡, 地胡 or 人胡 (`tiles_special_melds`).
    """
    hand = parse_tiles(tiles) if isinstance(tiles, str) else tiles
    declared = hand.declared
    if how.always_concealed and declared:
        raise refusal(
            "tiles_special_melds",
            how=str(how),
            group=str(declared[0]),
        )
    counts = [0] * 34
    for tile in hand.concealed:
        counts[INDEX[tile]] += 1
    exposed = sum(meld.exposed for meld in declared)
    qingyise = _one_suit(hand)
    menqing = not exposed
    quanqiuren = exposed == 4 and not how.self_drawn
    readings: list[Reading] = []
    if not declared and all(count in (0, 2, 4) for count in counts):
        pairs = tuple(_PAIRS[i] for i, count in enumerate(counts) for _ in range(count // 2))
        groups = counts.count(4)
        unit = _unit(how, _QIDUI, groups, qingyise, True, False)
        readings.append(Reading(_QIDUI, groups, qingyise, True, False, pairs, unit))
    melds_needed = 4 - len(declared)
    for shape in _regular(counts, melds_needed):
        pattern = _JIHU if any(meld.kind == _RUN for meld in shape) else _PPH
        unit = _unit(how, pattern, 0, qingyise, menqing, quanqiuren)
        melds = (*declared, *shape)
        readings.append(Reading(pattern, 0, qingyise, menqing, quanqiuren, melds, unit))
    if not readings:
        left = " ".join(str(TILES[i]) for i in _left_over(counts, melds_needed, not declared))
        raise refusal("tiles_not_winning", left=left)
    readings.sort(key=lambda reading: -reading.unit)  # stable: 七对, then tile order
    return TilesReading(hand, how, tuple(readings))


def _one_suit(hand: HandTiles) -> bool:
    """清一色: every tile, the groups' too, of one suit m/p/s (no honours)."""
    suits = {tile.suit for tile in hand.concealed}
    suits.update(meld.tile.suit for meld in hand.declared)
    return len(suits) == 1 and Suit.Z not in suits


def _unit(
    how: WinType, pattern: Pattern, groups: int, qingyise: bool, menqing: bool, quanqiuren: bool
) -> int:
    """u = b × k of a reading, from `hand_value` (memoised: a few hundred keys at most).

    u does not depend on the chain or the kongs, so 杠上花 is valued as the self-draw it is
    (hand_value would want the chain's kongs)."""
    key = (how, pattern, groups, qingyise, menqing, quanqiuren)
    unit = _UNITS.get(key)
    if unit is None:
        valued = WinType.ZIMO if how == WinType.GANGKAI else how
        dealer = 1 if how in (WinType.DIHU, WinType.RENHU) else 0
        win = Win(
            winner=0,
            how=valued,
            discarder=1 if valued.needs_discarder else None,
            pattern=pattern,
            groups=groups,
            qingyise=qingyise,
            menqing=menqing,
            quanqiuren=quanqiuren,
        )
        unit = _UNITS[key] = hand_value(win, dealer).unit
    return unit


def _regular(counts: list[int], melds: int) -> list[tuple[Meld, ...]]:
    """Every split of the concealed tiles into `melds` pungs or runs and a pair (the pair
    last). `counts` is changed while searching and restored."""
    out: list[tuple[Meld, ...]] = []
    if sum(counts) != 3 * melds + 2:
        return out
    for i, count in enumerate(counts):
        if count >= 2:
            counts[i] -= 2
            out.extend((*shape, _PAIRS[i]) for shape in _melds(counts, 0))
            counts[i] += 2
    return out


def _melds(counts: list[int], start: int) -> list[tuple[Meld, ...]]:
    """Every split of `counts` from `start` on into pungs and runs, each once: all copies of
    the lowest tile left start a meld, a pung (at most one) or runs."""
    i = start
    while i < 34 and not counts[i]:
        i += 1
    if i == 34:
        return [()]
    out: list[tuple[Meld, ...]] = []
    count = counts[i]
    counts[i] = 0
    for pungs in (1, 0) if count >= 3 else (0,):
        runs = count - 3 * pungs
        if runs and not (i < 27 and i % 9 < 7 and counts[i + 1] >= runs and counts[i + 2] >= runs):
            continue
        if runs:
            counts[i + 1] -= runs
            counts[i + 2] -= runs
        head = (_PUNGS[i],) * pungs + (_RUNS[i],) * runs
        out.extend((*head, *rest) for rest in _melds(counts, i + 1))
        if runs:
            counts[i + 1] += runs
            counts[i + 2] += runs
    counts[i] = count
    return out


def _left_over(counts: list[int], melds: int, seven_pairs: bool) -> tuple[int, ...]:
    """The fewest tiles that the closest reading leaves over (indices): four melds and a pair
    as far as they go, or seven pairs when nothing is declared."""
    regular = _fewest_left(counts, melds)
    if seven_pairs:
        odd = tuple(i for i, count in enumerate(counts) if count % 2)
        if odd and len(odd) <= len(regular):  # a tie: the pairs were meant
            return odd
    return regular


def _fewest_left(counts: list[int], melds: int) -> tuple[int, ...]:
    """The smallest leftover of a partial split into at most `melds` melds and one pair: a
    search over (tile, what is left of it and its two successors, melds and pair to place)."""
    memo: dict[tuple[int, int, int, int, int, int], tuple[int, ...]] = {}

    def at(i: int) -> int:
        return counts[i] if i < 34 else 0

    def best(i: int, a: int, b: int, c: int, m: int, p: int) -> tuple[int, ...]:
        while a == 0:
            if i >= 33:
                return ()
            i, a, b, c = i + 1, b, c, at(i + 3)
        key = (i, a, b, c, m, p)
        found = memo.get(key)
        if found is not None:
            return found
        options = [(i, *best(i, a - 1, b, c, m, p))]
        if m and a >= 3:
            options.append(best(i, a - 3, b, c, m - 1, p))
        if p and a >= 2:
            options.append(best(i, a - 2, b, c, m, p - 1))
        if m and b and c and i < 27 and i % 9 < 7:
            options.append(best(i, a - 1, b - 1, c - 1, m - 1, p))
        found = memo[key] = min(options, key=len)
        return found

    return best(0, counts[0], counts[1], counts[2], melds, 1)


def _word(pattern: Pattern, groups: int) -> str:
    """The pattern's word as /hu takes it: jihu, pph, qidui, qidui1..3."""
    if pattern == _QIDUI:
        return f"qidui{groups}" if groups else "qidui"
    return "pph" if pattern == _PPH else "jihu"


def check_words(
    reading: TilesReading,
    *,
    pattern: Pattern | None = None,
    groups: int = 0,
    qingyise: bool = False,
    menqing: bool = False,
    quanqiuren: bool = False,
    sealed: bool = False,
) -> Reading:
    """The best reading that has all the words typed beside the tiles claim, or ScoringError.

    `pattern` is None when no pattern word was typed (groups go with 七对); a flag word claims
    its fact (`sealed`: 封胡, three melds off one player). A word contradicts the tiles when no
    reading has what it claims: 清一色 with two suits, 门清 with an exposed group, 全求人 without
    four, 碰碰胡 where every reading has a run, qidui2 where the tiles hold one set of four…
    Words choose among the readings; they never add to them.
    """
    tiles = reading.tiles
    best = reading.best
    if qingyise and not best.qingyise:
        suits = sorted({tile.suit for meld in best.melds for tile in meld.tiles})
        raise refusal("tiles_words_qingyise", suits=" ".join(suits))
    exposed = tiles.exposed
    if menqing and exposed:
        raise refusal("tiles_words_menqing", group=str(exposed[0]))
    if quanqiuren and len(exposed) < 4:
        raise refusal("tiles_words_quanqiuren", exposed=len(exposed))
    if sealed and len(exposed) < 3:
        raise refusal("tiles_words_sealed", exposed=len(exposed))
    if pattern is None:
        return best
    word = _word(pattern, groups)
    matching = [r for r in reading.readings if r.pattern == pattern]
    if not matching:
        read = _word(best.pattern, best.groups)
        raise refusal("tiles_words_pattern", word=word, read=read)
    if pattern == _QIDUI and matching[0].groups != groups:
        counted = matching[0].groups
        raise refusal(
            "tiles_words_groups",
            word=word,
            counted=counted,
            read=_word(_QIDUI, counted),
        )
    return matching[0]
