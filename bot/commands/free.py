"""Free scoring: `/new free [name]`, a round `/s 老王+30 小李-10 阿张`, a transfer `/pay`."""

from __future__ import annotations

import re
from decimal import Decimal
from fractions import Fraction

from bot.commands.reader import (
    CONTROL,
    DIGITS,
    ParseError,
    distinct,
    player_ref,
    ref_key,
    show,
    split_words,
)
from bot.i18n import N_
from scoring.games import Game
from service.requests import NewTable, Pay, Score, ScoreEntry

_MAX_GAME_NAME = 24
#: `+30`, `-10`, `赢30`, `输10` (after a name, or as the next word).
_SCORE = re.compile(r"(?P<sign>[+\-\u2212]|赢|输)(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_NAME_SCORE = re.compile(r"(?P<name>.+?)" + _SCORE.pattern)
_AMOUNT = re.compile(r"\+?(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_MAX_DIGITS = 12  # 10¹² is far above any bound: refuse longer numbers here


def parse_new_free(words: list[str], usage: str) -> NewTable:
    """`/new free [name]`: a table for any game, its name one word."""
    if len(words) > 1:
        raise ParseError(
            N_("a free game's name is one word, without spaces: '{words}'"),
            usage,
            words=show(" ".join(words)),
        )
    name = words[0] if words else ""
    if len(name) > _MAX_GAME_NAME or CONTROL.search(name):
        raise ParseError(
            N_("'{word}' is not a game name (at most 24 characters)"), usage, word=show(name)
        )
    return NewTable(Game.FREE, name=name)


def number(number: str, word: str, usage: str) -> Fraction:
    """An amount's number (as written in `word`): exact, and not too long."""
    if len(number.replace(".", "")) > _MAX_DIGITS:
        raise ParseError(N_("'{word}': the amount is too big"), usage, word=show(word))
    return Fraction(Decimal(number))


def parse_score(args: str, usage: str) -> Score:
    """`/s 老王+30 小李-10 阿张` (also `老王 +30`, `老王赢30 小李输10`): players and their
    scores; one player without a number takes the balance."""
    entries: list[tuple[str, Fraction | None]] = []
    for word in split_words(args):
        sign_only = _SCORE.fullmatch(word)
        glued = None if sign_only else _NAME_SCORE.fullmatch(word)
        match = sign_only or glued
        amount = None
        if match is not None:
            amount = number(match["number"], word, usage)
            amount = amount if match["sign"] in ("+", "赢") else -amount
        if sign_only is not None:
            if not entries or entries[-1][1] is not None:
                raise ParseError(N_("'{word}' has no player before it"), usage, word=show(word))
            entries[-1] = (entries[-1][0], amount)
        elif glued is not None:
            entries.append((glued["name"], amount))
        elif DIGITS.fullmatch(word) and entries and entries[-1][1] is None and len(word) > 1:
            raise ParseError(
                N_("'{word}': write the sign, e.g. 老王+30 or 老王-30"), usage, word=show(word)
            )
        else:
            entries.append((word, None))
    return score(entries, usage)


def score(entries: list[tuple[str, Fraction | None]], usage: str) -> Score:
    """A round of each player (as written) and their score, None for the one who takes the
    balance; as typed, or entered in the Mini App's boxes."""
    if not entries:
        raise ParseError(N_("give each player's score"), usage)
    refs = [player_ref(name, usage) for name, _ in entries]
    distinct(refs, [name for name, _ in entries], usage)
    return Score(
        tuple(ScoreEntry(ref, amount) for ref, (_, amount) in zip(refs, entries, strict=True))
    )


def parse_pay(args: str, usage: str) -> Pay:
    """`/pay <payer> <payee> <amount>`."""
    words = split_words(args)
    if len(words) != 3:
        raise ParseError(
            N_("give the payer, the payee and the amount (got {count} words)"),
            usage,
            count=str(len(words)),
        )
    payer, payee, amount = words
    return pay(payer, payee, amount, usage)


def pay(payer: str, payee: str, amount: str, usage: str) -> Pay:
    """A transfer from `payer` to `payee` (each as written) of `amount` (a positive number);
    as typed, or tapped in the Mini App."""
    match = _AMOUNT.fullmatch(amount)
    if match is None:
        raise ParseError(
            N_("'{word}' is not an amount: a positive number like 5 or 2.50"),
            usage,
            word=show(amount),
        )
    refs = [player_ref(payer, usage), player_ref(payee, usage)]
    if ref_key(refs[0]) == ref_key(refs[1]):
        raise ParseError(N_("a player cannot pay themselves"), usage)
    return Pay(refs[0], refs[1], number(match["number"], amount, usage))


def reads_as_a_player(word: str) -> bool:
    """Whether `word` in a round reads as a player's name, not as a score (`赢3`, `Ann-2`)."""
    return _SCORE.fullmatch(word) is None and _NAME_SCORE.fullmatch(word) is None
