"""The tile notation: `123m456m789s55s`, `[777p]` exposed, `(9999m)` concealed kong, or the
Unicode tiles 🀇…🀡 🀀…🀆 (also inside brackets); spaces between groups are free.

`parse_tiles` refuses with a `ScoringError` (codes in `TILES_ERRORS`) bad notation, a group that
is no pung or kong, a tile more than four times, and a count that is not 14 plus one per kong.
`looks_like_tiles` tells a word of tiles from a player's name, a seat or a pattern word.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Final

from scoring.errors import echo
from scoring.tiles_model import TILES, HandTiles, Meld, MeldKind, Suit, notation, refusal

__all__ = ["looks_like_tiles", "parse_tiles"]


def _normalisation() -> dict[int, str | None]:
    """Full-width ASCII → ASCII, 【】〔〕 → [], emoji variation selectors dropped."""
    table: dict[int, str | None] = {code: chr(code - 0xFEE0) for code in range(0xFF01, 0xFF5F)}
    table.update({ord("【"): "[", ord("】"): "]", ord("〔"): "[", ord("〕"): "]"})
    table.update({0xFE0E: None, 0xFE0F: None})
    return table


_NORMALISE: Final = _normalisation()
_FIRST_TILE, _LAST_TILE, _LAST_SYMBOL = 0x1F000, 0x1F021, 0x1F02B
_SUITS: Final = {"m": Suit.M, "p": Suit.P, "s": Suit.S, "z": Suit.Z}
_BASE: Final = {Suit.M: 0, Suit.P: 9, Suit.S: 18, Suit.Z: 27}
_CLOSE: Final = {"[": "]", "(": ")"}


def _unicode_index(code: int) -> int:
    """The tile index of a Unicode mahjong tile: 🀀-🀆 winds then dragons (中 发 白) = 1z-7z,
    🀇-🀏 characters = m, 🀐-🀘 bamboo = s, 🀙-🀡 circles = p."""
    offset = code - _FIRST_TILE
    if offset < 7:
        return 27 + offset
    if offset < 16:
        return offset - 7  # 1m..9m
    if offset < 25:
        return 18 + offset - 16  # 1s..9s
    return 9 + offset - 25  # 1p..9p


_ASCII_WORD = re.compile(r"[0-9A-Za-z\[\]()\s]+")
_TWO_LETTERS = re.compile(r"[A-Za-z]{2}")
_DIGIT_SUIT = re.compile(r"[0-9][mpszMPSZ]")


def looks_like_tiles(text: str) -> bool:
    """Whether `text` (a word or several) is meant as tiles, well written or not: it holds a
    Unicode mahjong tile, or it is made of digits, single letters and brackets, starts with a
    digit or a bracket, and has a digit followed by a suit letter or opens a bracket
    (`123m`, `[777p]`, `0m`; not `老王`, `qys`, `2`, `2pao` or `123`)."""
    text = text.translate(_NORMALISE).strip()
    if any(_FIRST_TILE <= ord(char) <= _LAST_SYMBOL for char in text):
        return True
    if not _ASCII_WORD.fullmatch(text) or _TWO_LETTERS.search(text):
        return False
    head = text.lstrip("[(")
    if not head[:1].isdigit():
        return False
    return head != text or _DIGIT_SUIT.search(text) is not None


class _Parser:
    """One pass over the text: digits wait for their suit letter; brackets collect a group."""

    def __init__(self) -> None:
        self.digits = ""  # waiting for a suit letter
        self.loose: list[int] = []  # tile indices outside brackets
        self.group: list[int] | None = None  # inside the open bracket
        self.opener = ""
        self.declared: list[Meld] = []

    def _target(self) -> list[int]:
        return self.loose if self.group is None else self.group

    def _open_text(self) -> str:
        return self.opener + notation(TILES[i] for i in self.group or ()) + self.digits

    def no_digits_waiting(self) -> None:
        if self.digits:
            raise refusal("tiles_no_suit", digits=echo(self.digits))

    def suit(self, letter: str) -> None:
        digits, self.digits = self.digits, ""
        if not digits:
            raise refusal("tiles_suit_without_digits", letter=letter)
        suit = _SUITS.get(letter.lower())
        if suit is None:
            raise refusal("tiles_suit_unknown", letter=letter, digits=echo(digits))
        target = self._target()
        for digit in digits:
            number = int(digit)
            if number == 0:
                raise refusal("tiles_digit_zero", tile=f"0{suit}")
            if suit == Suit.Z and number > 7:
                raise refusal("tiles_honour_range", tile=f"{number}z")
            target.append(_BASE[suit] + number - 1)

    def unicode(self, code: int) -> None:
        self.no_digits_waiting()
        self._target().append(_unicode_index(code))

    def open(self, char: str) -> None:
        self.no_digits_waiting()
        if self.group is not None:
            raise refusal("tiles_bracket_nested", group=echo(self._open_text()))
        self.group, self.opener = [], char

    def close(self, char: str) -> None:
        self.no_digits_waiting()
        group, opener = self.group, self.opener
        if group is None:
            raise refusal("tiles_bracket_unopened", char=char)
        self.group = None
        text = opener + notation(TILES[i] for i in sorted(group)) + char
        if _CLOSE[opener] != char:
            raise refusal("tiles_bracket_mismatch", group=echo(text))
        self.declared.append(_group(group, opener == "[", text))

    def finish(self) -> HandTiles:
        self.no_digits_waiting()
        if self.group is not None:
            group = self._open_text()
            raise refusal("tiles_bracket_unclosed", group=echo(group))
        return HandTiles(tuple(self.declared), tuple(TILES[i] for i in sorted(self.loose)))


def _group(tiles: list[int], exposed: bool, text: str) -> Meld:
    """The meld a bracketed group stands for; runs and odd shapes are refused."""
    first = min(tiles, default=0)
    same = len(set(tiles)) == 1
    if exposed:
        if same and len(tiles) in (3, 4):
            kind = MeldKind.PUNG if len(tiles) == 3 else MeldKind.KONG
            return Meld(kind, TILES[first], exposed=True)
        if sorted(tiles) == [first, first + 1, first + 2] and first < 27 and first % 9 < 7:
            raise refusal("tiles_exposed_run", group=echo(text))
        raise refusal("tiles_group_shape", group=echo(text))
    if same and len(tiles) == 4:
        return Meld(MeldKind.KONG, TILES[first])
    raise refusal("tiles_concealed_kong", group=echo(text))


def parse_tiles(text: str) -> HandTiles:
    """The tiles of `text`, checked: notation, groups, at most 4 of a tile, and 14 tiles plus
    one per kong (the winning tile included)."""
    parser = _Parser()
    for char in text.translate(_NORMALISE):
        code = ord(char)
        if "0" <= char <= "9":
            parser.digits += char
        elif char.isascii() and char.isalpha():
            parser.suit(char)
        elif _FIRST_TILE <= code <= _LAST_TILE:
            parser.unicode(code)
        elif char in "[(":
            parser.open(char)
        elif char in "])":
            parser.close(char)
        elif char.isspace():
            parser.no_digits_waiting()
        elif _LAST_TILE < code <= _LAST_SYMBOL:
            raise refusal("tiles_flower", char=char)
        else:
            raise refusal("tiles_char", char=char)
    hand = parser.finish()
    _check_counts(hand)
    return hand


def _check_counts(hand: HandTiles) -> None:
    counts = Counter(hand.concealed)
    for meld in hand.declared:
        counts.update(meld.tiles)
    for tile in sorted(counts):
        if counts[tile] > 4:
            raise refusal("tiles_copies", tile=str(tile), count=counts[tile])
    kongs = len(hand.kongs)
    given, needed = counts.total(), 14 + kongs
    if given != needed:
        raise refusal(
            "tiles_count",
            given=given,
            needed=needed,
            kongs=kongs,
        )
