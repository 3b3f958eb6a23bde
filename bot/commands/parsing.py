"""The command language's entry: the text of a message → a typed request of `service.requests`.

The grammar is the one docs/commands.md describes. `parse` reads the command word and hands the
rest to its family's parser (`tables`, `mahjong`, `k510`, `free`, `views`, `undo`, `admin`; their
keywords and aliases are in `words`, the readers they share in `reader`). Keywords are
case-insensitive and have Chinese and pinyin aliases; full-width characters (`／`, `＝`, `；`,
`１`, the ideographic space) read as their ASCII forms and commas as spaces. `parse` raises
nothing but `ParseError`: its `msgid` (an English template marked with `N_`) and `params` let
the bot reply with a translated, specific message, and its `usage` is the correct form.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bot.commands import admin, free, k510, mahjong, tables, undo, views
from bot.commands.reader import USAGE, NotForThisBot, ParseError, show, split_words, unknown
from bot.commands.words import normalise, synonyms
from bot.i18n import N_
from service.requests import (
    Chart,
    Export,
    Help,
    Leave,
    Liuju,
    Me,
    OpenApp,
    Rating,
    Request,
    Rules,
    Seasons,
    ShowPlayers,
    Standings,
    Stats,
    Summary,
)

__all__ = [
    "COMMANDS",
    "USAGE",
    "NotForThisBot",
    "ParseError",
    "command_name",
    "command_text",
    "normalise",
    "parse",
    "synonyms",
]

#: Every command word accepted (lower-case) → its canonical name.
_COMMAND_NAMES: dict[str, str] = {
    **{name: name for name in USAGE},
    "start": "help",
    "rank": "standings",
    "draw": "liuju",
    "kong": "gang",
    "report": "r",
    "流局": "liuju",
    "胡": "hu",
    "杠": "gang",
    "撤销": "undo",
    "排名": "standings",
    "帮助": "help",
    "规则": "rules",
    "加入": "join",
    "我是": "iam",
    "换": "sub",
    "离座": "leave",
    "改名": "rename",
    "合并": "merge",
    "结算": "settle",
    "score": "s",
    "记": "s",
    "记分": "s",
    "付": "pay",
    "我的": "me",
    "评分": "rating",
    "战报": "summary",
    "总结": "summary",
}

#: The Latin command names accepted (Telegram commands), aliases included.
COMMANDS: tuple[str, ...] = tuple(name for name in _COMMAND_NAMES if name.isascii())

_HEAD = re.compile(
    r"/(?P<cmd>[A-Za-z0-9_]+|[^\sA-Za-z0-9_@/]+)(?:@(?P<bot>[A-Za-z0-9_]+))?(?P<rest>.*)",
    re.DOTALL,
)

_Handler = Callable[[str], Request]


def _bare(make: Callable[[], Request], name: str) -> _Handler:
    """A command that takes no arguments."""

    def handler(args: str) -> Request:
        words = split_words(args)
        if words:
            raise ParseError(
                N_("/{command} takes no arguments (got '{word}')"),
                USAGE[name],
                command=name,
                word=show(words[0]),
            )
        return make()

    return handler


def _lenient(make: Callable[[], Request]) -> _Handler:
    """A command that ignores its arguments (/help, and /start with a deep-link payload)."""
    return lambda args: make()


def _start(args: str) -> Request:
    """/help, and /start: with the deep link `?start=me` (`/start me`), the sender's record."""
    return Me() if args.strip().lower() == "me" else Help()


def _seasonal(make: Callable[[int | None], Request], name: str) -> _Handler:
    """A command taking an optional season number."""
    return lambda args: make(views.season_arg(args, USAGE[name]))


_HANDLERS: dict[str, _Handler] = {
    "new": tables.parse_new,
    "join": tables.parse_join,
    "seats": tables.parse_seats,
    "dealer": tables.parse_dealer,
    "players": _bare(ShowPlayers, "players"),
    "iam": tables.parse_iam,
    "sub": tables.parse_sub,
    "leave": _bare(Leave, "leave"),
    "rename": tables.parse_rename,
    "merge": tables.parse_merge,
    "link": admin.parse_link,
    "unlink": admin.parse_unlink,
    "gang": mahjong.parse_gang,
    "hu": mahjong.parse_hu,
    "liuju": _bare(Liuju, "liuju"),
    "r": k510.parse_report,
    "undo": undo.parse_undo,
    "standings": _seasonal(Standings, "standings"),
    "history": views.parse_history,
    "settle": views.parse_settle,
    "stats": _seasonal(Stats, "stats"),
    "chart": _seasonal(Chart, "chart"),
    "export": _seasonal(Export, "export"),
    "rules": _lenient(Rules),
    "help": _start,
    "reset": admin.parse_reset,
    "seasons": _bare(Seasons, "seasons"),
    "app": _bare(OpenApp, "app"),
    "set": admin.parse_set,
    "s": free.parse_score,
    "pay": free.parse_pay,
    "me": _bare(Me, "me"),
    "rating": _bare(Rating, "rating"),
    "summary": _bare(Summary, "summary"),
}


def _glued(rest: str) -> bool:
    """Whether the command word runs on into ASCII text ("/hu-x": not /hu)."""
    return rest[0].isascii() and not rest[0].isspace()


def _name(head: re.Match[str]) -> str | None:
    """The canonical name of the command `head` matched, None for an unknown one."""
    rest = head.group("rest")
    return None if rest and _glued(rest) else _COMMAND_NAMES.get(head.group("cmd").lower())


def command_name(text: str) -> str | None:
    """The canonical name of the command `text` starts with (`/胡 …` → "hu"), or None."""
    head = _HEAD.match(normalise(text).strip())
    return None if head is None else _name(head)


_MENTION = re.compile(r"@(?P<bot>[A-Za-z0-9_]+)\s*(?P<rest>/.*)", re.DOTALL)


def command_text(text: str, bot_username: str) -> str | None:
    """`text` as a command for this bot when Telegram may not have marked it as one: `/胡 …`
    (Telegram marks only Latin commands) or any known command word, and `@thisbot /command …`
    (returned without the mention). None for anything else: unknown words (`/胡说`), a command
    for another bot, a mention not followed by a command, ordinary text. The command is returned
    as typed (full-width forms kept: it is recorded with the hand)."""
    read = normalise(text)  # as long as `text`, character for character
    start, end = len(read) - len(read.lstrip()), len(read.rstrip())
    read = read[start:end]
    bot = bot_username.removeprefix("@").lower()
    if mention := _MENTION.match(read):
        return text[start + mention.start("rest") : end] if mention["bot"].lower() == bot else None
    head = _HEAD.match(read)
    if head is None or _name(head) is None:
        return None
    addressee = head.group("bot")
    return text[start:end] if addressee is None or addressee.lower() == bot else None


def parse(text: str, bot_username: str | None = None) -> Request:
    """The request a message asks for, e.g. `parse("/hu 老王 zimo qys")`.

    `bot_username` (with or without @) is this bot's: `/cmd@other_bot` raises `NotForThisBot`.
    Raises `ParseError` (and nothing else) for anything that is not a valid command.
    """
    text = normalise(text).strip()
    head = _HEAD.match(text)
    if head is None:
        if not text.startswith("/"):
            raise ParseError(
                N_("'{text}' is not a command: commands start with /"),
                USAGE["help"],
                text=show(text),
            )
        raise ParseError(N_("a command follows the /, e.g. /help"), USAGE["help"])
    command, bot, rest = head.group("cmd", "bot", "rest")
    if bot and bot_username and bot.lower() != bot_username.removeprefix("@").lower():
        raise NotForThisBot(N_("this command is addressed to @{bot}"), "", bot=bot)
    name = _name(head)
    if name is None and rest and _glued(rest):
        command = text[1:].split(maxsplit=1)[0]
    if name is None:
        raise unknown(
            command,
            _COMMAND_NAMES,
            USAGE["help"],
            N_("unknown command /{word}; /help lists the commands"),
            N_("unknown command /{word} — did you mean /{guess}?"),
        )
    return _HANDLERS[name](rest)
