"""`/undo`: the table's last record, a hand by its number, or the confirmation."""

from __future__ import annotations

from bot.commands.reader import ParseError, no_more, show, split_words
from bot.commands.words import CONFIRM
from bot.i18n import N_
from service.requests import Undo

MAX_HAND_NO = 2**31 - 1


def parse_undo(args: str, usage: str) -> Undo:
    """`/undo` (the table's last record) · `/undo 7` (hand #7) · `/undo confirm`."""
    words = split_words(args)
    if not words:
        return Undo()
    no_more(words[1:], usage)
    word = words[0]
    if word.lower() in CONFIRM:
        return Undo(confirm=True)
    number = word.removeprefix("#").removeprefix("第").removesuffix("局")
    if not (number.isascii() and number.isdigit()) or not 0 < int(number) <= MAX_HAND_NO:
        raise ParseError(
            N_("'{word}' is not a hand number; write /undo 7 for hand #7"),
            usage,
            word=show(word),
        )
    return Undo(hand_no=int(number))
