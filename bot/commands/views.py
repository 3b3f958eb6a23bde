"""What everyone may ask: a season's number (`/standings 2`, `/chart season 2`),
`/history [n] [season <number>]` and `/settle [money] [season]`."""

from __future__ import annotations

from bot.commands.edit import hand_number
from bot.commands.reader import DIGITS, Cursor, ParseError, no_more, show, split_words, whole
from bot.commands.words import ALL, MONEY, SEASON
from bot.i18n import N_
from service.requests import Export, History, Settle


def season_number(word: str, usage: str) -> int:
    if not DIGITS.fullmatch(word) or not 1 <= whole(word) <= 1_000_000:
        raise ParseError(N_("'{word}' is not a season number"), usage, word=show(word))
    return whole(word)


def season_arg(args: str, usage: str) -> int | None:
    """`[season] <number>` or nothing."""
    words = split_words(args)
    if words and words[0].lower() in SEASON:
        if len(words) == 1:
            raise ParseError(N_("which season? Give its number"), usage)
        words = words[1:]
    if not words:
        return None
    no_more(words[1:], usage)
    return season_number(words[0], usage)


def parse_export(args: str, usage: str) -> Export:
    """`/export [all] [season]` (`/export 全部 2`): `all`, every version /edit replaced too."""
    first, _, rest = args.strip().partition(" ")
    trail = first.lower() in ALL
    return Export(season_arg(rest if trail else args, usage), trail=trail)


def parse_history(args: str, usage: str) -> History:
    """`/history [n] [season <number>]`, n in 1–100 (default 10)."""
    words = Cursor(split_words(args))
    n: int | None = None
    season: int | None = None
    versions: int | None = None
    while (word := words.next()) is not None:
        if word.lower() in SEASON and season is None:
            number = words.next()
            if number is None:
                raise ParseError(N_("which season? Give its number"), usage)
            season = season_number(number, usage)
        elif DIGITS.fullmatch(word) and n is None:
            n = whole(word)  # hand #n's versions too, where it was corrected (the service's)
            if not 1 <= n <= 100:
                raise ParseError(N_("'{word}' hands? Ask for 1 to 100"), usage, word=show(word))
        elif word[:1] in "#第" and (hand := hand_number(word)) is not None and versions is None:
            versions = hand  # `/history #7`: hand #7's versions
        else:
            raise ParseError(N_("unexpected '{word}'"), usage, word=show(word))
    return History(10 if n is None else n, season, versions)


def parse_settle(args: str, usage: str) -> Settle:
    """`/settle [money] [season]` (`/settle 钱`, `/settle 2 money`)."""
    words = split_words(args)
    money = [w for w in words if w.lower() in MONEY]
    if len(money) > 1:
        raise ParseError(N_("'{word}' twice"), usage, word=show(money[1]))
    rest = " ".join(w for w in words if w.lower() not in MONEY)
    return Settle(season_arg(rest, usage), money=bool(money))
