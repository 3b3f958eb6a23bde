"""Builds a mahjong hand as tiles for a pattern, groups and flags (the tests' generator).

Written apart from `scoring.tiles`: tiles are indices 0..33 (1m..9m, 1p..9p, 1s..9s, 1z..7z),
at most four of each. A 鸡胡 keeps one concealed tile single (so no all-pungs or seven-pairs
reading can outscore it); the other patterns cannot be outscored by construction. `write`
renders tiles in one of three styles (compact, one group a word, Unicode tiles), so that what
is built also exercises the notation.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass

from scoring import Pattern

SUITS = "mpsz"
SUITED = range(27)
HONOURS = range(27, 34)
RUN_STARTS = [i for i in SUITED if i % 9 < 7]


class Impossible(ValueError):
    """No hand has that pattern, those flags and those kongs."""


@dataclass(frozen=True)
class Built:
    """A built hand: `exposed` pungs/kongs as (tile, size), concealed kongs by tile, and the
    concealed tiles (melds and pair, or seven pairs)."""

    exposed: tuple[tuple[int, int], ...]
    concealed_kongs: tuple[int, ...]
    concealed: tuple[int, ...]
    runs: int  # concealed runs placed

    def counts(self) -> Counter[int]:
        counts = Counter(self.concealed)
        for tile, size in self.exposed:
            counts[tile] += size
        for tile in self.concealed_kongs:
            counts[tile] += 4
        return counts


def digits(tiles: list[int]) -> str:
    """Compact notation of sorted `tiles`: 123m55p."""
    out, suit = "", ""
    for tile in sorted(tiles):
        if suit and SUITS[tile // 9] != suit:
            out += suit
        out += str(tile % 9 + 1)
        suit = SUITS[tile // 9]
    return out + suit


def unicode_tile(tile: int) -> str:
    """🀇-🀏 characters (m), 🀙-🀡 circles (p), 🀐-🀘 bamboo (s), 🀀-🀆 honours (z)."""
    number = tile % 9
    first = {"m": 0x1F007, "p": 0x1F019, "s": 0x1F010, "z": 0x1F000}[SUITS[tile // 9]]
    return chr(first + number)


def write(built: Built, rng: random.Random, style: str | None = None) -> str:
    """The hand in the notation: exposed groups in brackets, concealed kongs in parentheses,
    the rest compact (`compact`), in small words (`spaced`) or as Unicode tiles (`unicode`)."""
    style = style or rng.choice(("compact", "spaced", "unicode"))
    groups = [("[", [t] * size, "]") for t, size in built.exposed]
    groups += [("(", [t] * 4, ")") for t in built.concealed_kongs]
    rng.shuffle(groups)
    concealed = sorted(built.concealed)
    if style == "unicode":
        parts = [o + "".join(map(unicode_tile, ts)) + c for o, ts, c in groups]
        rng.shuffle(concealed)
        parts.append("".join(map(unicode_tile, concealed)))
        return "".join(parts)
    parts = [o + digits(ts) + c for o, ts, c in groups]
    if style == "spaced":
        chunks = [concealed[i : i + 3] for i in range(0, len(concealed), 3)]
        parts += [digits(chunk) for chunk in chunks]
        rng.shuffle(parts)
        return " ".join(parts)
    parts.append(digits(concealed))
    return "".join(parts)


class _Tiles:
    """Tiles taken so far, four of each at most, from a pool of suits (and honours)."""

    def __init__(self, rng: random.Random, qingyise: bool) -> None:
        self.rng = rng
        self.counts: Counter[int] = Counter()
        suit = rng.randrange(3)
        self.suited = [i for i in SUITED if not qingyise or i // 9 == suit]
        self.honours = [] if qingyise else list(HONOURS)

    def take(self, tile: int, n: int) -> bool:
        if self.counts[tile] + n > 4:
            return False
        self.counts[tile] += n
        return True

    def same(self, n: int) -> int:
        """A tile of which `n` copies are still free (taken)."""
        pool = self.suited + self.honours
        for _ in range(50):
            tile = self.rng.choice(pool)
            if self.take(tile, n):
                return tile
        raise _Retry

    def run(self) -> int:
        starts = [i for i in RUN_STARTS if i in self.suited]
        for _ in range(50):
            first = self.rng.choice(starts)
            if all(self.counts[first + k] < 4 for k in range(3)):
                for k in range(3):
                    self.take(first + k, 1)
                return first
        raise _Retry


class _Retry(Exception):
    """This attempt ran out of free tiles, or might read as more than asked: try again."""


def build_hand(
    rng: random.Random,
    pattern: Pattern,
    groups: int = 0,
    *,
    qingyise: bool = False,
    menqing: bool = False,
    quanqiuren: bool = False,
    concealed_kongs: int = 0,
    exposed_kongs: int = 0,
) -> Built:
    """A random hand read exactly as asked (`Impossible` if no hand is). 全求人 is 碰碰胡 with
    four exposed groups; 七对 ignores 门清 (it always is); not 门清 means one exposed group at
    least (three at most, unless 全求人)."""
    _check(pattern, menqing, quanqiuren, concealed_kongs, exposed_kongs)
    for _ in range(200):
        try:
            built = _attempt(
                rng, pattern, groups, qingyise, menqing, quanqiuren, concealed_kongs, exposed_kongs
            )
        except _Retry:
            continue
        suits = {tile // 9 for tile in built.counts()}
        if (len(suits) == 1 and 3 not in suits) == qingyise:
            return built
    raise AssertionError("no hand found in 200 attempts")  # pragma: no cover


def _check(pattern: Pattern, menqing: bool, qqr: bool, an: int, ming: int) -> None:
    if pattern == Pattern.QIDUI:
        if qqr or an or ming:
            raise Impossible("七对 has no kong and nothing exposed")
        return
    if qqr and (menqing or an):
        raise Impossible("全求人 has four exposed groups")
    if menqing and ming:
        raise Impossible("门清 has no exposed kong")
    exposed = 4 if qqr else max(ming, 0 if menqing else 1)
    runs = 1 if pattern == Pattern.JIHU and not qqr else 0
    if exposed + an + runs > 4 or ming > exposed:
        raise Impossible(f"{exposed} exposed, {an} concealed kongs and {runs} run")


def _attempt(
    rng: random.Random,
    pattern: Pattern,
    groups: int,
    qingyise: bool,
    menqing: bool,
    qqr: bool,
    an: int,
    ming: int,
) -> Built:
    tiles = _Tiles(rng, qingyise)
    if pattern == Pattern.QIDUI:
        fours = [tiles.same(4) for _ in range(groups)]
        pairs = [tiles.same(2) for _ in range(7 - 2 * groups)]
        if len(set(fours + pairs)) != 7 - groups:
            raise _Retry
        hand = [t for t in fours for _ in range(4)] + [t for t in pairs for _ in range(2)]
        return Built((), (), tuple(sorted(hand)), 0)
    jihu = pattern == Pattern.JIHU and not qqr
    if qqr:
        exposed = 4
    elif menqing:
        exposed = 0
    else:  # 碰碰胡 shows at most three groups (a fourth on a discard is 全求人) but 4 kongs
        upper = min(4 - an - (1 if jihu else 0), max(3, ming))
        exposed = rng.randint(max(1, ming), upper)
    sizes = [4] * ming + [3] * (exposed - ming)
    shown = tuple((tiles.same(size), size) for size in sizes)
    kongs = tuple(tiles.same(4) for _ in range(an))
    left = 4 - exposed - an
    runs = rng.randint(1, left) if jihu else 0
    concealed: list[int] = []
    for _ in range(runs):
        first = tiles.run()
        concealed += [first, first + 1, first + 2]
    for _ in range(left - runs):
        concealed += [tiles.same(3)] * 3
    concealed += [tiles.same(2)] * 2
    if jihu and 1 not in Counter(concealed).values():
        raise _Retry  # every run tile doubled: a 碰碰胡 or 七对 reading might outscore it
    return Built(shown, kongs, tuple(sorted(concealed)), runs)
