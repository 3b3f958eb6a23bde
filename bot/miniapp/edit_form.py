"""✎ Edit in History: the Record form of a recorded hand, round or transfer, filled from the
content the record keeps (`service.repeats.content`: players by id), its seats by number as the
page taps them. None where the page has no form for it (a kong, a record kept before contents
were, tiles typed as a tile string the page cannot show as its keyboard's)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from bot.commands.words import HOW, PATTERNS
from bot.miniapp.forms import HOWS, PATTERN_WORDS
from scoring.mahjong_model import Pattern
from service.requests import Hu, Liuju, Pay, Report, Score


def form_of(content: Any, seat_ids: Sequence[int]) -> dict[str, Any] | None:
    """The page's form (record.js's state) of a record's content, or None."""
    if not isinstance(content, Mapping):
        return None
    seats = {pid: i + 1 for i, pid in enumerate(seat_ids)}
    try:
        return _FORMS[str(content.get("_"))](content, seats)
    except (KeyError, TypeError, ValueError):
        return None


def _seat(ref: Any, seats: Mapping[int, int]) -> int | None:
    return None if ref is None else seats[int(ref["id"])]


def _amount(value: Any) -> Fraction:
    return Fraction(str(value["_q"]))


def _text(amount: Fraction) -> str:
    """An amount as its box takes it: `12`, `12.5` (the page's are at most two decimals)."""
    hundredths = abs(amount) * 100
    if hundredths.denominator != 1:
        raise ValueError("amount")
    whole, cents = divmod(int(hundredths), 100)
    return str(whole) if not cents else f"{whole}.{cents:02d}".rstrip("0")


def _hu(content: Mapping[str, Any], seats: Mapping[int, int]) -> dict[str, Any]:
    hows = {HOW[word].value: key for key, word in HOWS.items()}
    patterns = {PATTERNS[word]: word for word in PATTERN_WORDS}
    clauses = []
    for c in content["clauses"]:
        if c.get("tiles") or c.get("chain_kongs"):
            raise ValueError("not the page's")  # tiles, a 杠上花 chain written inline
        pattern = patterns[(Pattern(c["pattern"]["v"]), c["groups"])]
        clauses.append(
            {
                "winner": _seat(c["winner"], seats),
                "how": hows[c["how"]["v"]],
                "from": _seat(c.get("source"), seats),
                "chain": c.get("chain"),
                "pattern": pattern,
                "qys": bool(c.get("qingyise")),
                "mq": bool(c.get("menqing")),
                "qqr": bool(c.get("quanqiuren")),
                "sealed": _seat(c.get("sealed"), seats),
                "tiles": None,
            }
        )
    return {"kind": "hu", "clauses": clauses}


def _liuju(content: Mapping[str, Any], seats: Mapping[int, int]) -> dict[str, Any]:
    return {"kind": "liuju"}


def _report(content: Mapping[str, Any], seats: Mapping[int, int]) -> dict[str, Any]:
    entries = {
        str(_seat(e["player"], seats)): {"table": e["table"], "held": e.get("held")}
        for e in content["entries"]
    }
    return {"kind": "report", "entries": entries, "out": [_seat(r, seats) for r in content["out"]]}


def _score(content: Mapping[str, Any], seats: Mapping[int, int]) -> dict[str, Any]:
    amounts: dict[str, str] = {}
    signs: dict[str, str] = {}
    for e in content["entries"]:
        seat, amount = str(_seat(e["player"], seats)), _amount(e["amount"])
        amounts[seat], signs[seat] = _text(amount), "-" if amount < 0 else "+"
    return {"kind": "score", "amounts": amounts, "signs": signs, "balance": None}


def _pay(content: Mapping[str, Any], seats: Mapping[int, int]) -> dict[str, Any]:
    payer, payee = _seat(content["payer"], seats), _seat(content["payee"], seats)
    return {
        "kind": "pay",
        "payer": payer,
        "payee": payee,
        "amount": _text(_amount(content["amount"])),
    }


#: By the request a record's content is (its `_`: the request's class name).
_FORMS = {
    kind.__name__: make
    for kind, make in ((Hu, _hu), (Liuju, _liuju), (Report, _report), (Score, _score), (Pay, _pay))
}
