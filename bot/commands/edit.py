"""`/edit <n> <command>`: record #n corrected to the command (its command word may be left
out: the words are read as each command that records something correctable reads them, and
the service takes the one of the record's kind)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, cast

from bot.commands.reader import ParseError, show
from bot.i18n import N_
from service import edit
from service.requests import Edit, Request

MAX_HAND_NO = 2**31 - 1
EXAMPLE = "/edit 7 /hu 阿张 pao 小李 pph qys"


def hand_number(word: str) -> int | None:
    """`7`, `#7`, `第7局`: a hand number; None for anything else."""
    number = word.removeprefix("#").removeprefix("第").removesuffix("局")
    if number.isascii() and number.isdigit() and 0 < int(number) <= MAX_HAND_NO:
        return int(number)
    return None


def parse_edit(args: str, usage: str, words: Mapping[str, Any]) -> Edit:
    """`/edit 7 /hu 阿张 pao 小李` · `/edit 7 阿张 pao 小李` · `/edit /hu …` (a reply: the
    record replied to). `words`: the command table's words → their commands (`catalog.WORDS`),
    the commands read in the table's order."""

    first, _, rest = args.strip().partition(" ")
    hand_no = hand_number(first)
    rest = rest.strip() if hand_no is not None else args.strip()
    if not rest:
        raise ParseError(N_("write the corrected command after the hand number"), EXAMPLE)
    correctable = edit.requests()
    commands = [c for c in dict.fromkeys(words.values()) if set(c.makes) & correctable]
    word, _, tail = rest.partition(" ")
    named = words.get(word.removeprefix("/").split("@")[0].lower())
    if named is not None and named in commands:
        shown = word if word.startswith("/") else f"/{word}"
        candidates = [(named, tail.strip(), shown)]
    elif word.startswith("/"):
        raise ParseError(
            N_("{word} records nothing that can be corrected; write the record's own command"),
            EXAMPLE,
            word=show(word),
        )
    else:
        candidates = [(c, rest, f"/{c.name}") for c in commands]
    options: list[Request] = []
    texts: list[str] = []
    errors: list[ParseError] = []
    for command, arguments, shown in candidates:
        try:
            options.append(_parsed(command.parse, command.makes[0], arguments, command.usage))
        except ParseError as err:
            errors.append(err)
            continue
        texts.append(f"{shown} {arguments}".strip())
    if not options:
        if len(errors) == 1:
            raise errors[0]
        raise ParseError(
            N_("'{words}' is no command of a record; write it with its command, e.g.:"),
            EXAMPLE,
            words=show(rest),
        )
    return Edit(tuple(options), tuple(texts), hand_no=hand_no)


def _parsed(parse: object, make: type[Request], arguments: str, usage: str) -> Request:
    if callable(parse):
        request = parse(arguments, usage)
        assert isinstance(request, make)
        return request
    if arguments:
        raise ParseError(N_("unexpected '{word}'"), usage, word=show(arguments.split()[0]))
    plain = cast(Callable[[], Request], make)  # no fields, as `parsing` makes it
    return plain()
