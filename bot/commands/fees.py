"""`/fee <amount> <what> [paid <payer> | all | <players>…]` (`台费`): a cost beside the score.

`/fee 120 台费` (the open table's players share it), `/fee 120 台费 all` (the sitting's),
`/fee 30 茶水 小李 阿张` (those named), `/fee 120 台费 paid 老王` (老王 paid it for everyone).
The amount may come first or second (`/台费 120`, `/fee 台费 120`); without a word for what it
is, it is a table fee (台费)."""

from __future__ import annotations

import re

from bot.commands.free import number
from bot.commands.reader import CONTROL, ParseError, player_ref, show, split_words
from bot.i18n import N_
from service.requests import Fee, PlayerRef

#: `120`, `35.5`, `¥120`, `120元`, `120块`.
_AMOUNT = re.compile(r"[¥￥]?(?P<number>[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:元|块|块钱)?")
PAID = frozenset({"paid", "payer", "付", "付了", "垫", "垫付", "买单"})
ALL = frozenset({"all", "全部", "所有人", "大家", "全体"})
TABLE_FEE = "台费"
_MAX_WHAT = 16


def parse_fee(args: str, usage: str) -> Fee:
    """The fee's amount, what it is for, and who shares or paid it."""
    words = split_words(args)
    if not words:
        raise ParseError(N_("give the amount and what it is for, like 120 台费"), usage)
    if _AMOUNT.fullmatch(words[0]) is None and len(words) > 1 and _AMOUNT.fullmatch(words[1]):
        words[0], words[1] = words[1], words[0]  # `/fee 台费 120`
    found = _AMOUNT.fullmatch(words[0])
    if found is None:
        raise ParseError(
            N_("'{word}' is not an amount of money: a positive number like 120 or 35.5"),
            usage,
            word=show(words[0]),
        )
    amount = number(found["number"], words[0], usage)
    if amount <= 0 or (amount * 100).denominator != 1:
        raise ParseError(
            N_("'{word}': a fee is more than 0, with at most two decimals"),
            usage,
            word=show(words[0]),
        )
    rest = words[1:]
    what = TABLE_FEE
    if rest and rest[0].casefold() not in PAID | ALL:
        what = rest.pop(0)
        if len(what) > _MAX_WHAT or CONTROL.search(what) or _AMOUNT.fullmatch(what):
            raise ParseError(
                N_("'{word}' is not what a fee is for (a word like 台费 or 茶水)"),
                usage,
                word=show(what),
            )
    payer: PlayerRef | None = None
    players: list[PlayerRef] = []
    everyone = False
    while rest:
        word = rest.pop(0)
        key = word.casefold()
        if key in PAID:
            if not rest or payer is not None:
                raise ParseError(N_("give one player after 'paid': who paid it"), usage)
            payer = player_ref(rest.pop(0), usage)
        elif key in ALL:
            everyone = True
        else:
            players.append(player_ref(word, usage))
    if everyone and players:
        raise ParseError(N_("either 'all' or the players who share it, not both"), usage)
    return Fee(amount, what, payer, tuple(players), everyone)
