"""510K: `/r A=30 B=20 C=40/10 D=10 out A C`, each player's points and who went out."""

from __future__ import annotations

import re

from bot.commands.reader import DIGITS, USAGE, ParseError, distinct, player_ref, show, whole
from bot.commands.words import OUT
from bot.i18n import N_
from service.requests import PlayerRef, Report, ReportEntry

_AROUND_EQUALS = re.compile(r"\s*([=/])(?:\s+(?=[0-9]))?")  # "A = 30 / 10" → "A=30/10"


def _points(text: str, entry: str, usage: str) -> int:
    """Table points or points in hand: 0–100, a multiple of 5."""
    if not text:
        raise ParseError(N_("'{entry}' is missing its points"), usage, entry=show(entry))
    if not DIGITS.fullmatch(text):
        raise ParseError(
            N_("'{entry}': points are whole numbers from 0 to 100"), usage, entry=show(entry)
        )
    value = whole(text)
    if value > 100:
        raise ParseError(N_("'{entry}': points cannot exceed 100"), usage, entry=show(entry))
    if value % 5:
        raise ParseError(N_("'{entry}' is not a multiple of 5"), usage, entry=show(entry))
    return value


def _entry(word: str, usage: str) -> ReportEntry:
    """`<player>=<table points>[/<points in hand>]`."""
    name, _, figures = word.partition("=")
    if not name:
        raise ParseError(N_("'{entry}' is missing the player before '='"), usage, entry=show(word))
    table, slash, held = figures.partition("/")
    return ReportEntry(
        player_ref(name, usage),
        _points(table, word, usage),
        _points(held, word, usage) if slash else None,
    )


def parse_report(args: str) -> Report:
    """`/r A=30 B=20 C=40/10 D=10 out A C`: entries, then `out` and who went out, in order."""
    usage = USAGE["r"]
    entries: list[ReportEntry] = []
    entry_words: list[str] = []
    out: list[PlayerRef] = []
    out_words: list[str] = []
    in_out = False
    for word in _AROUND_EQUALS.sub(r"\1", args.replace(":", "=")).replace(";", " ").split():
        if "=" in word:
            entries.append(_entry(word, usage))
            entry_words.append(word.partition("=")[0])
        elif in_out:
            out.append(player_ref(word, usage))
            out_words.append(word)
        elif word.lower() in OUT:
            in_out = True
        else:
            raise ParseError(
                N_("'{word}' is not an entry like A=30 (is 'out' missing before it?)"),
                usage,
                word=show(word),
            )
    if not 3 <= len(entries) <= 4:
        raise ParseError(
            N_("give every player's points, 3 or 4 entries like A=30 (got {count})"),
            usage,
            count=str(len(entries)),
        )
    distinct([entry.player for entry in entries], entry_words, usage)
    if not in_out:
        raise ParseError(N_("say who went out, in order: out <first> <second>"), usage)
    if not 2 <= len(out) <= 3:
        raise ParseError(
            N_("'out' lists the 2 or 3 players who went out, in order (got {count})"),
            usage,
            count=str(len(out)),
        )
    distinct(out, out_words, usage)
    return Report(tuple(entries), tuple(out))
