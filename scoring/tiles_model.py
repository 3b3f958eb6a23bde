"""A mahjong hand written as tiles: the tiles, the groups, the readings, and the refusals.

Frozen dataclasses only; `scoring.tiles_notation` parses the notation and `scoring.tiles` reads
the hand. `TILES_ERRORS` maps every `ScoringError.code` raised by those modules to what it means
and how the hand is written correctly: a template that the error's `params` fill (each names the
tiles or counts involved), marked for translation (N_): the bot shows it filled in the chat's
language.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Final

from scoring.errors import N_, ScoringError
from scoring.mahjong_model import Pattern, Win, WinType

TILES_ERRORS: Final[dict[str, str]] = {
    "tiles_char": N_(
        "'{char}' is not part of the tile notation: digits then a suit letter (m p s z), "
        "[777p] for an exposed pung or kong, (9999m) for a concealed kong"
    ),
    "tiles_flower": N_("'{char}' is not a tile of this game: no flowers, seasons or jokers"),
    "tiles_no_suit": N_("the digits '{digits}' have no suit letter after them: write e.g. 123m"),
    "tiles_suit_without_digits": N_(
        "the suit letter '{letter}' follows no digits: write the digits first, e.g. 55{letter}"
    ),
    "tiles_suit_unknown": N_(
        "unknown suit '{letter}' in '{digits}{letter}': the suits are m 万, p 筒, s 条, z 字"
    ),
    "tiles_digit_zero": N_("'{tile}': tiles are numbered 1 to 9 (a red five is written 5)"),
    "tiles_honour_range": N_("'{tile}': the honours are 1z to 7z (东 南 西 北 中 发 白)"),
    "tiles_bracket_nested": N_("a bracket opens inside '{group}': groups are not nested"),
    "tiles_bracket_unclosed": N_("'{group}' is not closed: write [777p] or (9999m)"),
    "tiles_bracket_unopened": N_("'{char}' closes no group: write [777p] or (9999m)"),
    "tiles_bracket_mismatch": N_(
        "'{group}' opens with one bracket and closes with another: [777p] exposed, "
        "(9999m) concealed kong"
    ),
    "tiles_exposed_run": N_(
        "'{group}': this rule set has no chow (不准吃牌), so no exposed run; exposed groups are "
        "pungs [777p] and kongs [2222s], runs stand in the hand without brackets"
    ),
    "tiles_group_shape": N_(
        "'{group}': an exposed group in brackets is a pung of three identical tiles [777p] or a "
        "kong of four [2222s]"
    ),
    "tiles_concealed_kong": N_(
        "'{group}': parentheses hold a concealed kong, four identical tiles such as (9999m); "
        "the other concealed tiles stand without brackets"
    ),
    "tiles_copies": N_("{tile} is written {count} times: there are only 4 of each tile"),
    "tiles_count": N_(
        "{given} tiles given, {needed} needed: 14 with the winning tile, and one more for each "
        "kong ({kongs} here)"
    ),
    "tiles_not_winning": N_(
        "not a winning hand: {left} do not fit four melds (pungs, kongs, runs) and a pair, nor "
        "seven pairs"
    ),
    "tiles_special_melds": N_(
        "{how} is won on the first tiles, before anyone melds or kongs: the tiles cannot show "
        "the group '{group}'"
    ),
    "tiles_words_qingyise": N_("清一色 (qys) was given, but the tiles are of the suits {suits}"),
    "tiles_words_menqing": N_(
        "门清 (mq) was given, but the tiles show the exposed group '{group}'"
    ),
    "tiles_words_quanqiuren": N_(
        "全求人 (qqr) needs four exposed groups in brackets; the tiles show {exposed}"
    ),
    "tiles_words_sealed": N_(
        "封胡 (feng) needs three melds taken off the sealed player; the tiles show {exposed} "
        "exposed groups"
    ),
    "tiles_words_pattern": N_("'{word}' was given, but the tiles read as {read}, never as {word}"),
    "tiles_words_groups": N_(
        "'{word}' was given, but the tiles hold {counted} set(s) of four identical tiles: {read}"
    ),
}


def refusal(code: str, **params: object) -> ScoringError:
    """The ScoringError of `code`, its message the code's template filled with `params`."""
    return ScoringError(code, TILES_ERRORS[code].format(**params), **params)


class Suit(StrEnum):
    M = "m"  # 万 characters
    P = "p"  # 筒 circles
    S = "s"  # 条 bamboo
    Z = "z"  # 字 honours: 1-7 = 东 南 西 北 中 发 白


@dataclass(frozen=True, order=True)
class Tile:
    """One tile, e.g. `Tile(Suit.P, 7)`; `str` gives its notation, `7p`."""

    suit: Suit
    number: int

    def __str__(self) -> str:
        return f"{self.number}{self.suit}"


#: The 34 tiles in index order: 1m..9m, 1p..9p, 1s..9s, 1z..7z (the index of the reader).
TILES: Final = tuple(Tile(suit, n) for suit in Suit for n in range(1, 10 if suit != "z" else 8))
INDEX: Final = {tile: i for i, tile in enumerate(TILES)}


def notation(tiles: Iterable[Tile]) -> str:
    """Tiles in the short notation, one suit letter per run of the same suit: `123m55p`."""
    out: list[str] = []
    suit: Suit | None = None
    for tile in tiles:
        if suit is not None and tile.suit != suit:
            out.append(suit)
        out.append(str(tile.number))
        suit = tile.suit
    if suit is not None:
        out.append(suit)
    return "".join(out)


class MeldKind(StrEnum):
    PAIR = "pair"
    RUN = "run"  # 顺子: only in the concealed part (no chow)
    PUNG = "pung"
    KONG = "kong"


_SIZES: Final = {MeldKind.PAIR: 2, MeldKind.PUNG: 3, MeldKind.KONG: 4}


@dataclass(frozen=True)
class Meld:
    """A group of a reading. `tile` is a run's lowest tile; `exposed` is a group written in
    brackets (a pung or kong taken off another player); a kong not exposed is concealed."""

    kind: MeldKind
    tile: Tile
    exposed: bool = False

    @property
    def tiles(self) -> tuple[Tile, ...]:
        if self.kind == MeldKind.RUN:
            i = INDEX[self.tile]
            return TILES[i : i + 3]
        return (self.tile,) * _SIZES[self.kind]

    def __str__(self) -> str:
        text = notation(self.tiles)
        if self.exposed:
            return f"[{text}]"
        return f"({text})" if self.kind == MeldKind.KONG else text


@dataclass(frozen=True)
class HandTiles:
    """Parsed tiles: the groups written in brackets, in the order written, and the other
    (concealed) tiles, sorted. Counts are checked: at most 4 of a tile, 14 plus 1 per kong."""

    declared: tuple[Meld, ...]
    concealed: tuple[Tile, ...]

    @property
    def kongs(self) -> tuple[Meld, ...]:
        """The kongs: concealed `(9999m)` and exposed `[2222s]`, to compare with /gang."""
        return tuple(meld for meld in self.declared if meld.kind == MeldKind.KONG)

    @property
    def exposed(self) -> tuple[Meld, ...]:
        return tuple(meld for meld in self.declared if meld.exposed)

    def __str__(self) -> str:
        return " ".join([*(str(meld) for meld in self.declared), notation(self.concealed)])


@dataclass(frozen=True)
class Reading:
    """One way to read the tiles as a winning hand, with what scoring needs of it.

    `melds`: the declared groups, the concealed melds in tile order, the pair last; for 七对 the
    seven pairs (a set of four is two equal pairs). `unit` is u = b × k of this reading, as
    `scoring.hand_value` values it for the way to win the reading was made for.
    """

    pattern: Pattern
    groups: int
    qingyise: bool
    menqing: bool
    quanqiuren: bool
    melds: tuple[Meld, ...]
    unit: int

    def apply(self, win: Win) -> Win:
        """`win` with this reading's pattern, groups and flags."""
        return replace(
            win,
            pattern=self.pattern,
            groups=self.groups,
            qingyise=self.qingyise,
            menqing=self.menqing,
            quanqiuren=self.quanqiuren,
        )


@dataclass(frozen=True)
class TilesReading:
    """Every reading of a hand's tiles for one way to win, the highest-scoring first."""

    tiles: HandTiles
    how: WinType
    readings: tuple[Reading, ...]

    @property
    def best(self) -> Reading:
        return self.readings[0]

    @property
    def kongs(self) -> tuple[Meld, ...]:
        return self.tiles.kongs
