"""The command language's entry: the text of a message → a typed request of `service.requests`.

The grammar is the one docs/commands.md describes. A message is read once (`read`: the command
word, for which bot, normalised), then `parse_typed` hands the rest to the parser of its
command's entry in the table (`bot.commands.catalog`; the families' parsers are `tables`,
`mahjong`, `k510`, `free`, `views`, `undo`, `admin`; their keywords and aliases are in `words`,
the readers they share in `reader`). Keywords are case-insensitive and have Chinese and pinyin
aliases; full-width characters (`／`, `＝`, `；`, `１`, the ideographic space) read as their
ASCII forms and commas as spaces. Parsing raises nothing but `ParseError`: its `msgid` (an
English template marked with `N_`) and `params` let the bot reply with a translated, specific
message, and its `usage` is the correct form.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import cast

from bot.commands.catalog import BY_NAME, WORDS, Command
from bot.commands.reader import NotForThisBot, ParseError, show, split_words, unknown
from bot.commands.words import normalise, synonyms
from bot.i18n import N_
from service.requests import Request

__all__ = [
    "LATIN",
    "NotForThisBot",
    "ParseError",
    "Typed",
    "command_text",
    "normalise",
    "parse",
    "parse_typed",
    "read",
    "synonyms",
]

#: The Latin command words accepted (what Telegram marks as commands), aliases included.
LATIN: tuple[str, ...] = tuple(word for word in WORDS if word.isascii())

_HEAD = re.compile(
    r"/(?P<cmd>[A-Za-z0-9_]+|[^\sA-Za-z0-9_@/]+)(?:@(?P<bot>[A-Za-z0-9_]+))?(?P<rest>.*)",
    re.DOTALL,
)
_MENTION = re.compile(r"@(?P<bot>[A-Za-z0-9_]+)\s*(?P<rest>/.*)", re.DOTALL)
_HELP = BY_NAME["help"].usage


@dataclass(frozen=True, slots=True)
class Typed:
    """A command as a message gives it to this bot, read once: its text as typed (`@thisbot
    /胡 …` without the mention: recorded with the change), the same normalised (what is
    parsed), and its command (None: no command jifen knows)."""

    text: str
    normal: str
    command: Command | None

    @property
    def name(self) -> str | None:
        return None if self.command is None else self.command.name

    def alone(self, bot_username: str) -> bool:
        """The command word alone (`/hu`, `/hu@thisbot`): asked by its buttons, if it has them."""
        head = _HEAD.fullmatch(self.normal)
        if head is None or head["rest"].strip():
            return False
        return head["bot"] is None or head["bot"].lower() == _bare_name(bot_username)


def _bare_name(bot_username: str) -> str:
    return bot_username.removeprefix("@").lower()


def _glued(rest: str) -> bool:
    """Whether the command word runs on into ASCII text ("/hu-x": not /hu)."""
    return rest[0].isascii() and not rest[0].isspace()


def _command(head: re.Match[str]) -> Command | None:
    """The command `head` matched, None for an unknown one."""
    rest = head.group("rest")
    return None if rest and _glued(rest) else WORDS.get(head.group("cmd").lower())


def read(text: str, bot_username: str, *, marked: bool = False) -> Typed | None:
    """The command `text` gives this bot: one Telegram marked at its start (`marked`: any
    word, for any bot: an unknown one is answered, another bot's left alone when parsed), or
    one for this bot it may not have marked: `/胡 …` (Telegram marks only Latin commands) or
    any known command word, and `@thisbot /command …`. None for anything else: unknown words
    (`/胡说`), a command for another bot, a mention not followed by a command, ordinary text.
    The text is normalised here once (full-width forms are kept in `text`: it is recorded)."""
    normal = normalise(text)  # as long as `text`, character for character
    start, end = len(normal) - len(normal.lstrip()), len(normal.rstrip())
    if mention := _MENTION.fullmatch(normal, start, end):
        if mention["bot"].lower() != _bare_name(bot_username):
            return None
        start = mention.start("rest")
        head = _HEAD.fullmatch(normal, start, end)
        return Typed(text[start:end], normal[start:end], _command(head) if head else None)
    head = _HEAD.fullmatch(normal, start, end)
    command = _command(head) if head else None
    addressee = head["bot"] if head else None
    for_us = addressee is None or addressee.lower() == _bare_name(bot_username)
    if not marked and (command is None or not for_us):
        return None
    return Typed(text[start:end], normal[start:end], command)


def command_text(text: str, bot_username: str) -> str | None:
    """`text` as a command for this bot when Telegram may not have marked it as one (`read`),
    as typed; None for anything else."""
    typed = read(text, bot_username)
    return None if typed is None else typed.text


def parse(text: str, bot_username: str | None = None) -> Request:
    """The request a message asks for, e.g. `parse("/hu 老王 zimo qys")`.

    `bot_username` (with or without @) is this bot's: `/cmd@other_bot` raises `NotForThisBot`.
    Raises `ParseError` (and nothing else) for anything that is not a valid command.
    """
    normal = normalise(text).strip()
    return _parse(normal, bot_username)


def parse_typed(typed: Typed, bot_username: str) -> Request:
    """The request of a command `read` from a message (not normalised again)."""
    return _parse(typed.normal, bot_username)


def _parse(text: str, bot_username: str | None) -> Request:
    head = _HEAD.match(text)
    if head is None:
        if not text.startswith("/"):
            raise ParseError(
                N_("'{text}' is not a command: commands start with /"), _HELP, text=show(text)
            )
        raise ParseError(N_("a command follows the /, e.g. /help"), _HELP)
    word, bot, rest = head.group("cmd", "bot", "rest")
    if bot and bot_username and bot.lower() != _bare_name(bot_username):
        raise NotForThisBot(N_("this command is addressed to @{bot}"), "", bot=bot)
    command = _command(head)
    if command is None:
        if rest and _glued(rest):
            word = text[1:].split(maxsplit=1)[0]
        raise unknown(
            word,
            WORDS,
            _HELP,
            N_("unknown command /{word}; /help lists the commands"),
            N_("unknown command /{word} — did you mean /{guess}?"),
        )
    if command.parse is not None:
        return command.parse(rest, command.usage)
    words = split_words(rest)
    if words:
        raise ParseError(
            N_("/{command} takes no arguments (got '{word}')"),
            command.usage,
            command=command.name,
            word=show(words[0]),
        )
    plain = cast(Callable[[], Request], command.makes[0])  # no fields: `test_parsing` checks
    return plain()
