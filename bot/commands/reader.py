"""What every command's parser shares: `ParseError`, and the small readers of words, numbers,
players and guest names."""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from bot.commands.words import ME, NOT_A_PLAYER, OUT, SEATS
from bot.i18n import N_
from service.requests import PlayerRef, RefKind


class ParseError(Exception):
    """A message that is not a valid command.

    `msgid` is an English template (marked with `N_`) filled from `params`; `usage` is the correct
    form of the command (also marked), "" when there is none to show.
    """

    def __init__(self, msgid: str, usage: str = "", /, **params: str) -> None:
        super().__init__(msgid)
        self.msgid = msgid
        self.usage = usage
        self.params: dict[str, str] = params

    def __str__(self) -> str:
        return self.msgid.format_map(self.params)


class NotForThisBot(ParseError):
    """`/cmd@other_bot`: a command addressed to another bot, to be ignored silently."""


DIGITS = re.compile(r"[0-9]+")
_NOT_DIGITS = re.compile(r"[^0-9]+")
_USERNAME = re.compile(r"[A-Za-z0-9_]{1,32}")
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_GUEST_FORBIDDEN = re.compile(r"[=/;]")

_MAX_NAME = 64  # a Telegram first name
_MAX_GUEST = 32


def show(text: str) -> str:
    """`text` shortened for an error message."""
    return text if len(text) <= 30 else text[:29] + "…"


def split_words(args: str) -> list[str]:
    return args.replace(";", " ").split()


def whole(digits: str) -> int:
    """The value of ASCII `digits`, saturating at 10⁹ (no huge ints from hostile input)."""
    return int(digits) if len(digits) <= 9 else 10**9


def unknown(
    word: str, choices: Iterable[str], usage: str, msgid: str, msgid_guess: str, allowed: str = ""
) -> ParseError:
    """The error for an unknown `word`, with `msgid_guess` when it looks like a typo of one of
    `choices`.

    Only a Latin word is guessed at, and only as a word with the same digits: a Chinese word
    that is not a keyword is more often another hand (龙七对 is not 七对) or a regional name
    than a typo, and a different number is a different hand (qidui4 is not qidui1) — a guess
    must never change the score unnoticed. The others get the list of `allowed` words.
    """
    if word.isascii() and len(word) <= 40:
        digits = _NOT_DIGITS.sub("", word)
        same = [c for c in choices if c.isascii() and _NOT_DIGITS.sub("", c) == digits]
        guess = difflib.get_close_matches(word.lower(), same, n=1, cutoff=0.75)
        if guess:
            return ParseError(msgid_guess, usage, word=show(word), guess=guess[0], allowed=allowed)
    return ParseError(msgid, usage, word=show(word), allowed=allowed)


def no_more(words: list[str], usage: str) -> None:
    """Refuse words left over at the end of a command."""
    if words:
        raise ParseError(
            N_("unexpected '{word}' at the end of the command"), usage, word=show(words[0])
        )


class Cursor:
    """The words of a command, read left to right."""

    __slots__ = ("_pos", "_words")

    def __init__(self, words: list[str]) -> None:
        self._words = words
        self._pos = 0

    def peek(self) -> str | None:
        return self._words[self._pos] if self._pos < len(self._words) else None

    def next(self) -> str | None:
        word = self.peek()
        self._pos += word is not None
        return word


# --- players ---


def player_ref(word: str, usage: str) -> PlayerRef:
    """A player reference: seat 1–4, @username, me/我, or a name (kept as typed)."""
    if word in SEATS:
        return PlayerRef(RefKind.SEAT, word)
    if word[0] == "@":
        if not _USERNAME.fullmatch(word, 1):
            raise ParseError(
                N_("'{word}' is not a Telegram username (letters, digits and _ after the @)"),
                usage,
                word=show(word),
            )
        return PlayerRef(RefKind.USERNAME, word[1:].lower())
    if word.lower() in ME:
        return PlayerRef(RefKind.ME, typed=word)
    if DIGITS.fullmatch(word):
        raise ParseError(N_("there is no seat {word}: seats are 1 to 4"), usage, word=show(word))
    if len(word) > _MAX_NAME or CONTROL.search(word):
        raise ParseError(N_("'{word}' is not a player's name"), usage, word=show(word))
    return PlayerRef(RefKind.NAME, word)


def ref_key(ref: PlayerRef) -> tuple[RefKind, str]:
    """What makes two references the same as typed (names are case-insensitive)."""
    return ref.kind, ref.value.casefold()


def guest_name(word: str, usage: str) -> str:
    """A valid guest name."""
    if word[0] == "@":
        raise ParseError(
            N_("'{word}': a guest name cannot start with @ (a Telegram user sends /join)"),
            usage,
            word=show(word),
        )
    if DIGITS.fullmatch(word):
        raise ParseError(
            N_("'{word}': a guest name cannot be a number (1 to 4 are seats)"),
            usage,
            word=show(word),
        )
    if len(word) > _MAX_GUEST:
        raise ParseError(
            N_("'{word}' is too long: a guest name has at most 32 characters"),
            usage,
            word=show(word),
        )
    if CONTROL.search(word):
        raise ParseError(N_("a guest name cannot contain control characters"), usage)
    if forbidden := _GUEST_FORBIDDEN.search(word):
        raise ParseError(
            N_("'{word}': a guest name cannot contain '{char}'"),
            usage,
            word=show(word),
            char=forbidden.group(),
        )
    key = word.lower()
    if key in ME or key in OUT or key in NOT_A_PLAYER:
        raise ParseError(
            N_("'{word}' is a keyword: choose another guest name"), usage, word=show(word)
        )
    return word


def distinct(refs: list[PlayerRef], words: list[str], usage: str) -> None:
    """Refuse a player named twice."""
    seen: set[tuple[RefKind, str]] = set()
    for ref, word in zip(refs, words, strict=True):
        if ref_key(ref) in seen:
            raise ParseError(N_("{player} is named twice"), usage, player=show(word))
        seen.add(ref_key(ref))
