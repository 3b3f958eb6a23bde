"""A tap's form (JSON) → the command a player would type → the parser's typed request.

The app builds the same text the chat accepts (seat numbers and keywords only, nothing free):
`parse` makes of it exactly the request a typed command makes, with the parser's own checks, and
the text is what the hand's record and the group's message echo.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import Any

from bot.commands.parsing import ParseError, parse
from service.requests import PlayerRef, RefKind, Request

HOWS = {
    "zimo": "zimo",
    "dianpao": "pao",
    "gangkai": "gangkai",
    "gangpao": "gangpao",
    "qianggang": "qianggang",
    "quanqiupao": "quanqiupao",
    "haidilao": "haidi",
    "haidipao": "haidipao",
    "tianhu": "tianhu",
    "dihu": "dihu",
    "renhu": "renhu",
}
FROM_HOWS = frozenset({"dianpao", "gangpao", "qianggang", "quanqiupao", "haidipao"})
CHAINED = frozenset({"gangkai", "gangpao", "qianggang"})
PATTERNS = ("jihu", "pph", "qidui", "qidui1", "qidui2", "qidui3")
KONGS = ("an", "ming", "bu")
FLAGS = ("qys", "mq", "qqr")
TILES = re.compile(r"[1-9mpsz\[\]() ]{1,100}")  # the tile keyboard's notation (static/tiles.js)


class FormError(ValueError):
    """A form no tap can make (the page sends only well-formed ones)."""


Label = Callable[[int], str]  # how a seat is written: its number, or its player's name


def _seat(value: Any, most: int = 4) -> int:
    if type(value) is not int or not 1 <= value <= most:
        raise FormError("seat")
    return value


FREE_SEATS = 10  # a free table seats 2–10
AMOUNT = re.compile(r"\d{1,7}(?:\.\d{1,2})?")  # exact, at most two decimals, as /s and /pay take


def _amount(value: Any, signed: bool) -> str:
    text = value if isinstance(value, str) else ""
    sign, digits = (text[0], text[1:]) if text[:1] in "+-" and text else ("", text)
    if not AMOUNT.fullmatch(digits) or (signed and not sign) or (sign and not signed):
        raise FormError("amount")
    return sign + digits


def _points(value: Any) -> str:
    if type(value) is not int or not -10_000 <= value <= 10_000:
        raise FormError("points")
    return str(value)


def _list(value: Any, limit: int) -> list[Any]:
    if not isinstance(value, list) or not 1 <= len(value) <= limit:
        raise FormError("list")
    return value


def _clause(c: Any, label: Label) -> str:
    if not isinstance(c, Mapping) or c.get("how") not in HOWS:
        raise FormError("clause")
    how = str(c["how"])
    words = [label(_seat(c.get("winner"))), HOWS[how]]
    if how in FROM_HOWS:
        words.append(label(_seat(c.get("from"))))
    if how in CHAINED and c.get("chain") is not None:
        chain = c["chain"]
        if type(chain) is not int or not 1 <= chain <= 4:
            raise FormError("chain")
        words.append(str(chain))
    pattern = c.get("pattern", "jihu")
    if pattern not in PATTERNS:
        raise FormError("pattern")
    if pattern != "jihu":
        words.append(pattern)
    words += [flag for flag in FLAGS if c.get(flag) is True]
    if c.get("sealed") is not None:
        words += ["feng", label(_seat(c["sealed"]))]
    if c.get("tiles") is not None:
        if not isinstance(c["tiles"], str) or not TILES.fullmatch(c["tiles"].strip()):
            raise FormError("tiles")
        words.append(c["tiles"].strip())
    return " ".join(words)


def _hu(form: Mapping[str, Any], label: Label) -> str:
    return "/hu " + "; ".join(_clause(c, label) for c in _list(form.get("clauses"), 3))


def _gang(form: Mapping[str, Any], label: Label) -> str:
    kind = form.get("type")
    if kind not in KONGS:
        raise FormError("kong")
    words = ["/gang", label(_seat(form.get("player"))), str(kind)]
    if kind != "an":
        words.append(label(_seat(form.get("from"))))
    return " ".join(words)


def _report(form: Mapping[str, Any], label: Label) -> str:
    words = ["/r"]
    for entry in _list(form.get("entries"), 4):
        if not isinstance(entry, Mapping):
            raise FormError("entry")
        word = f"{label(_seat(entry.get('player')))}={_points(entry.get('table'))}"
        if entry.get("held") is not None:
            word += f"/{_points(entry['held'])}"
        words.append(word)
    words += ["out", *(label(_seat(p)) for p in _list(form.get("out"), 3))]
    return " ".join(words)


def _score(form: Mapping[str, Any], label: Label) -> str:
    """`/s 1+30 2-10 3`: the boxes filled, then the balancing player (no number)."""
    words, seen = ["/s"], set()
    for entry in _list(form.get("entries"), FREE_SEATS):
        if not isinstance(entry, Mapping):
            raise FormError("entry")
        seat = _seat(entry.get("player"), FREE_SEATS)
        seen.add(seat)
        words.append(label(seat) + _amount(entry.get("amount"), signed=True))
    if form.get("balance") is not None:
        seat = _seat(form["balance"], FREE_SEATS)
        if seat in seen:
            raise FormError("balance")
        words.append(label(seat))
    return " ".join(words)


def _pay(form: Mapping[str, Any], label: Label) -> str:
    payer, payee = (_seat(form.get(k), FREE_SEATS) for k in ("payer", "payee"))
    return f"/pay {label(payer)} {label(payee)} {_amount(form.get('amount'), signed=False)}"


_COMMANDS: dict[str, Callable[[Mapping[str, Any], Label], str]] = {
    "hu": _hu,
    "gang": _gang,
    "liuju": lambda form, label: "/liuju",
    "report": _report,
    "score": _score,
    "pay": _pay,
}
_NAME = re.compile(r"[^\W\d_][\w.-]{0,31}")  # one plain word: a name the parser reads back


def command(form: Any, label: Label = str) -> str:
    """The command text of a form; `FormError` when it is not one the page makes."""
    if not isinstance(form, Mapping) or form.get("kind") not in _COMMANDS:
        raise FormError("kind")
    return _COMMANDS[str(form["kind"])](form, label)


def request(form: Any, seats: Sequence[str | None] = ()) -> tuple[str, Request]:
    """The command and its request (`ParseError` when the parser refuses it). The command names
    the players from `seats` where the parser reads the name as that player (one plain word, no
    other seat of that name, not a keyword): else it keeps the number. A seat the parser cannot
    number (a free table's 5th to 10th) is named whenever its name is plain."""
    text = command(form)
    folded = [(name or "").casefold() for name in seats]

    def name(seat: int) -> str:
        given = seats[seat - 1] if seat <= len(seats) else None
        plain = given and _NAME.fullmatch(given) and folded.count(given.casefold()) == 1
        return given if plain and given else str(seat)

    named = command(form, name)
    try:
        wanted = parse(text)
    except ParseError:  # a free table's seat 5 to 10: the parser reads seats 1 to 4 only
        if named == text:
            raise
        return named, parse(named)
    try:
        same = parse(named) == _named(wanted, name)
    except ParseError:
        same = False
    return (named if same else text), wanted


def _named(value: Any, name: Label) -> Any:
    """`value` with each seat reference made the name reference `name` writes for it."""
    if isinstance(value, PlayerRef):
        if value.kind is RefKind.SEAT and not name(int(value.value)).isdigit():
            return PlayerRef(RefKind.NAME, name(int(value.value)))
        return value
    if isinstance(value, tuple):
        return tuple(_named(item, name) for item in value)
    if is_dataclass(value) and not isinstance(value, type):
        return replace(
            value, **{f.name: _named(getattr(value, f.name), name) for f in fields(value)}
        )
    return value
