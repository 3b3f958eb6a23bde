"""A tap's form (JSON) → the service's request and the command a player would type for it, made
together by one function (`request`), never by parsing text the app wrote.

The text is what the record and the group's message echo: seat numbers, keywords and the
players' names where the name, typed, reads as that player (`player_words.reads_back`). Each
player's word is read as the parser reads it (`reader.player_ref`), and the checks the chat
makes of the same values are the parser's own (`k510.entry`, `k510.report`, `free.score`,
`free.pay`), so a form makes exactly the request its text would, and is refused as it would be.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from bot.commands import free, k510
from bot.commands.catalog import BY_NAME
from bot.commands.player_words import reads_back
from bot.commands.reader import player_ref
from bot.commands.words import HOW, KONGS, PATTERNS
from service.requests import Gang, Hu, HuClause, Liuju, PlayerRef, Request

#: The page's ways to win → the word a player types.
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
PATTERN_WORDS = ("jihu", "pph", "qidui", "qidui1", "qidui2", "qidui3")
KONG_WORDS = ("an", "ming", "bu")
FLAGS = {"qys": "qingyise", "mq": "menqing", "qqr": "quanqiuren"}
TILES = re.compile(r"[1-9mpsz\[\]() ]{1,100}")  # the tile keyboard's notation (static/tiles.js)
FREE_SEATS = 10  # a free table seats 2–10
AMOUNT = re.compile(r"\d{1,7}(?:\.\d{1,2})?")  # exact, at most two decimals, as /s and /pay take
_NAME = re.compile(r"[^\W\d_][\w.-]{0,31}")  # one plain word


class FormError(ValueError):
    """A form no tap can make (the page sends only well-formed ones)."""


class Players:
    """How the form's seats are written (a seat's name where it reads back as that player and
    no other seat has it, else its number) and what each word reads as."""

    def __init__(self, seats: Sequence[str | None], usage: str) -> None:
        self.seats, self.usage = seats, usage
        self.folded = [(name or "").casefold() for name in seats]

    def word(self, seat: int) -> str:
        given = self.seats[seat - 1] if seat <= len(self.seats) else None
        if given and _NAME.fullmatch(given) and self.folded.count(given.casefold()) == 1:
            return given if reads_back(given) else str(seat)
        return str(seat)

    def ref(self, seat: int) -> PlayerRef:
        return player_ref(self.word(seat), self.usage)


def _seat(value: Any, most: int = 4) -> int:
    if type(value) is not int or not 1 <= value <= most:
        raise FormError("seat")
    return value


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


def _clause(c: Any, players: Players) -> tuple[str, HuClause]:
    if not isinstance(c, Mapping) or c.get("how") not in HOWS:
        raise FormError("clause")
    how_key = str(c["how"])
    winner = _seat(c.get("winner"))
    words, how = [players.word(winner), HOWS[how_key]], HOW[HOWS[how_key]]
    source = None
    if how_key in FROM_HOWS:
        seat = _seat(c.get("from"))
        words.append(players.word(seat))
        source = players.ref(seat)
    chain = None
    if how_key in CHAINED and c.get("chain") is not None:
        chain = c["chain"]
        if type(chain) is not int or not 1 <= chain <= 4:
            raise FormError("chain")
        words.append(str(chain))
    pattern = c.get("pattern", "jihu")
    if pattern not in PATTERN_WORDS:
        raise FormError("pattern")
    if pattern != "jihu":
        words.append(pattern)
    flags = [flag for flag in FLAGS if c.get(flag) is True]
    words += flags
    sealed = None
    if c.get("sealed") is not None:
        seat = _seat(c["sealed"])
        words += ["feng", players.word(seat)]
        sealed = players.ref(seat)
    tiles = ""
    if c.get("tiles") is not None:
        if not isinstance(c["tiles"], str) or not TILES.fullmatch(c["tiles"].strip()):
            raise FormError("tiles")
        words.append(c["tiles"].strip())
        tiles = " ".join(c["tiles"].split())  # as the parser joins the tiles' words
    kind, groups = PATTERNS[pattern]
    clause = HuClause(
        players.ref(winner),
        how,
        source=source,
        chain=chain,
        pattern=kind,
        groups=groups,
        qingyise="qys" in flags,
        menqing="mq" in flags,
        quanqiuren="qqr" in flags,
        sealed=sealed,
        tiles=tiles,
        pattern_word=pattern != "jihu" and bool(tiles),
    )
    return " ".join(words), clause


def _hu(form: Mapping[str, Any], seats: Sequence[str | None]) -> tuple[str, Request]:
    players = Players(seats, BY_NAME["hu"].usage)
    clauses = [_clause(c, players) for c in _list(form.get("clauses"), 3)]
    return "/hu " + "; ".join(text for text, _ in clauses), Hu(tuple(c for _, c in clauses))


def _gang(form: Mapping[str, Any], seats: Sequence[str | None]) -> tuple[str, Request]:
    kind = form.get("type")
    if kind not in KONG_WORDS:
        raise FormError("kong")
    players = Players(seats, BY_NAME["gang"].usage)
    konger = _seat(form.get("player"))
    words = ["/gang", players.word(konger), str(kind)]
    source = None
    if kind != "an":
        seat = _seat(form.get("from"))
        words.append(players.word(seat))
        source = players.ref(seat)
    return " ".join(words), Gang(players.ref(konger), KONGS[str(kind)], source)


def _liuju(form: Mapping[str, Any], seats: Sequence[str | None]) -> tuple[str, Request]:
    return "/liuju", Liuju()


def _report(form: Mapping[str, Any], seats: Sequence[str | None]) -> tuple[str, Request]:
    usage = BY_NAME["r"].usage
    players = Players(seats, usage)
    words, entries, entry_words = ["/r"], [], []
    for given in _list(form.get("entries"), 4):
        if not isinstance(given, Mapping):
            raise FormError("entry")
        player = players.word(_seat(given.get("player")))
        table = _points(given.get("table"))
        held = None if given.get("held") is None else _points(given["held"])
        entries.append(k510.entry(player, table, held, usage))
        entry_words.append(player)
        words.append(f"{player}={table}" + ("" if held is None else f"/{held}"))
    out = [players.word(_seat(seat)) for seat in _list(form.get("out"), 3)]
    report = k510.report(entries, entry_words, [player_ref(w, usage) for w in out], out, usage)
    return " ".join([*words, "out", *out]), report


def _score(form: Mapping[str, Any], seats: Sequence[str | None]) -> tuple[str, Request]:
    """`/s 1+30 2-10 3`: the boxes filled, then the balancing player (no number)."""
    usage = BY_NAME["s"].usage
    players = Players(seats, usage)
    words, seen = ["/s"], set()
    entries: list[tuple[str, Fraction | None]] = []
    for given in _list(form.get("entries"), FREE_SEATS):
        if not isinstance(given, Mapping):
            raise FormError("entry")
        seat = _seat(given.get("player"), FREE_SEATS)
        seen.add(seat)
        player, amount = players.word(seat), _amount(given.get("amount"), signed=True)
        value = free.number(amount[1:], player + amount, usage)
        entries.append((player, value if amount[0] == "+" else -value))
        words.append(player + amount)
    if form.get("balance") is not None:
        seat = _seat(form["balance"], FREE_SEATS)
        if seat in seen:
            raise FormError("balance")
        entries.append((players.word(seat), None))
        words.append(players.word(seat))
    return " ".join(words), free.score(entries, usage)


def _pay(form: Mapping[str, Any], seats: Sequence[str | None]) -> tuple[str, Request]:
    players = Players(seats, BY_NAME["pay"].usage)
    payer, payee = (players.word(_seat(form.get(k), FREE_SEATS)) for k in ("payer", "payee"))
    amount = _amount(form.get("amount"), signed=False)
    return f"/pay {payer} {payee} {amount}", free.pay(payer, payee, amount, players.usage)


_FORMS: dict[str, Callable[[Mapping[str, Any], Sequence[str | None]], tuple[str, Request]]] = {
    "hu": _hu,
    "gang": _gang,
    "liuju": _liuju,
    "report": _report,
    "score": _score,
    "pay": _pay,
}


def request(form: Any, seats: Sequence[str | None] = ()) -> tuple[str, Request]:
    """The command a player would type for `form` at a table seated as `seats`, and its
    request. `FormError`: not a form the page makes; `ParseError`: refused as the typed
    command would be (the reason for the player)."""
    if not isinstance(form, Mapping) or form.get("kind") not in _FORMS:
        raise FormError("kind")
    return _FORMS[str(form["kind"])](form, seats)
