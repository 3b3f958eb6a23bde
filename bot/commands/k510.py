"""510K: `/r A=30 B=20 C=40/10 D=10 out A C`, each player's points and who went out."""

from __future__ import annotations

import re

from bot.commands.reader import DIGITS, ParseError, distinct, player_ref, show, whole
from bot.commands.words import OUT
from bot.i18n import N_
from service.requests import PlayerRef, Report, ReportEntry

_GLUED = re.compile(r"^(?P<name>.*[^\d/=])(?P<points>\d+(?:/\d+)?)$")  # 阿明60, 阿明60/10
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
    table, slash, held = figures.partition("/")
    return entry(name, table, held if slash else None, usage)


def entry(player: str, table: str, held: str | None, usage: str) -> ReportEntry:
    """A player's entry of a report (typed `<player>=<table>[/<held>]`, or tapped in the Mini
    App): the player and their points, each 0 to 100 and a multiple of 5."""
    written = f"{player}={table}" + ("" if held is None else f"/{held}")
    if not player:
        raise ParseError(
            N_("'{entry}' is missing the player before '='"), usage, entry=show(written)
        )
    return ReportEntry(
        player_ref(player, usage),
        _points(table, written, usage),
        None if held is None else _points(held, written, usage),
    )


def _glued(word: str, usage: str) -> tuple[ReportEntry, str] | None:
    """`阿明60` or `阿明60/10`: a name (not ending in a digit) and its points without the `=`;
    None for a word that is no such thing. Points it cannot be (`阿明65`, `Bob2130`) are
    refused with the entry as it should be written; a number alone says to name the player."""
    match = _GLUED.match(word)
    if match is None:
        if word[:1].isdigit() and word.replace("/", "").isdigit():
            raise ParseError(
                N_("'{word}': write the player (seat or name), '=' and the points, like 1=60"),
                usage,
                word=show(word),
            )
        return None
    written = f"{match['name']}={match['points']}"
    try:
        return _entry(written, usage), match["name"]
    except ParseError as err:
        raise ParseError(
            N_(
                "'{word}' is not an entry: write the player, '=' and the points, like"
                " {example} (points are multiples of 5 from 0 to 100)"
            ),
            usage,
            word=show(word),
            example=show(written),
        ) from err


def parse_report(args: str, usage: str) -> Report:
    """`/r A=30 B=20 C=40/10 D=10 out A C`: entries, then `out` and who went out, in order."""
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
        elif glued := _glued(word, usage):  # `阿明60`, as phones type it: 阿明=60
            entries.append(glued[0])
            entry_words.append(glued[1])
        else:
            raise ParseError(
                N_("'{word}' is not an entry like A=30 (is 'out' missing before it?)"),
                usage,
                word=show(word),
            )
    return report(entries, entry_words, out if in_out else None, out_words, usage)


def report(
    entries: list[ReportEntry],
    entry_words: list[str],
    out: list[PlayerRef] | None,
    out_words: list[str],
    usage: str,
) -> Report:
    """A report of `entries` (each player once, 3 or 4) and who went `out` (2 or 3 players, in
    order; None: `out` was not said), as typed or tapped; the words are how each player was
    written, for the errors."""
    if not 3 <= len(entries) <= 4:
        raise ParseError(
            N_("give every player's points, 3 or 4 entries like A=30 (got {count})"),
            usage,
            count=str(len(entries)),
        )
    distinct([entry.player for entry in entries], entry_words, usage)
    if out is None:
        raise ParseError(N_("say who went out, in order: out <first> <second>"), usage)
    if not 2 <= len(out) <= 3:
        raise ParseError(
            N_("'out' lists the 2 or 3 players who went out, in order (got {count})"),
            usage,
            count=str(len(out)),
        )
    distinct(out, out_words, usage)
    return Report(tuple(entries), tuple(out))
