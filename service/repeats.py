"""The two-minute rule: a hand, 510K report, free round or transfer with the same content as its
table's last record, sent again within two minutes of it (by anyone, typed, by buttons or in
the Mini App), is not recorded until someone says it is a second one ([Record again]: `Again`).

Each record keeps its content in its data (`"same"`): the request with every player named by
id, so the comparison and the record again do not depend on who typed it or how (`我`, a seat
number, a name). Nothing is stored for the question itself: its button names the record it
repeats, whose content is recorded once more (a restart loses nothing).

A near repeat — the same winner(s), way and payer of a hand, or the same 510K finishing order,
with other content — asks too, showing the difference: [Replace #N] / [Record both] / [No]
(`Answered`). Its content is kept (`storage.gateway.near`), as a button cannot hold it. One
answer records once, whoever gives it and however often (`answer_key`).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from fractions import Fraction
from typing import Any

from scoring.mahjong_model import KongKind, Pattern, WinType
from service import players as who
from service.errors import N_, ServiceError
from service.hand_views import HandView
from service.replies import RepeatAsk
from service.requests import (
    Again,
    Answered,
    ChainKong,
    Hu,
    HuClause,
    Liuju,
    Pay,
    PlayerRef,
    RefKind,
    Report,
    ReportEntry,
    Score,
    ScoreEntry,
)
from service.unit import Tx
from storage.gateway import ledger as book
from storage.gateway import near as nearbook
from storage.gateway import tables
from storage.gateway.chats import LastRecord
from storage.models import EventRow, PlayerRow, TableRow

WINDOW = timedelta(minutes=2)
_STALE = N_("This question is out of date (the table or the season changed): type it again.")
Recordable = Hu | Liuju | Report | Score | Pay  # not a kong: two like kongs are two kongs
_CLASSES: dict[str, type[Any]] = {
    c.__name__: c
    for c in (Hu, HuClause, ChainKong, Liuju, Report, ReportEntry, Score, ScoreEntry, Pay)
}
_ENUMS: dict[str, type[StrEnum]] = {e.__name__: e for e in (WinType, Pattern, KongKind, RefKind)}


class Repeat(Exception):
    """Raised by `ledger.record` instead of recording: the question to ask (nothing written)."""

    def __init__(self, ask: RepeatAsk) -> None:
        super().__init__("repeat")
        self.ask = ask


def content(tx: Tx, table: TableRow, people: list[PlayerRow], request: Recordable) -> Any:
    """A request's content as a record keeps it (JSON): every player reference as the id of
    the seated player it names (the use case resolved them all already)."""

    def by_id(ref: PlayerRef) -> int:
        return table.seats[who.seat_of(tx, table, ref, people)]

    encoded = _encode(request, by_id)
    if isinstance(request, Report):  # the order players are written in says nothing
        encoded["entries"].sort(key=lambda entry: entry["player"]["id"])
    return encoded


def guard(tx: Tx, table: TableRow, same: Any, view: Callable[[EventRow], HandView]) -> None:
    """Raise `Repeat` when `same` is the content of the table's last record (not undone),
    recorded less than two minutes ago; `tx.again` (the question's answer) lets it through."""
    if tx.again:
        return
    tail = tx.tail
    if tail is not None and tail.table_id == table.id:  # as the write's first statement read it
        last = tail.last
    else:
        found = book.last_record(tx.db, table.id, tx.season.id)
        last = None
        if found is not None:
            undone, same_then = found.undone_by is not None, found.data.get("same")
            last = LastRecord(found.id, found.created_at, undone, same_then)
    if last is None or last.undone or last.same is None:
        return
    exact = last.same == same
    if not exact and (near_key(same) is None or near_key(same) != near_key(last.same)):
        return
    ago = (tx.now or book.now()) - at_utc(last.created_at)
    if ago > WINDOW:
        return
    event = book.event_by_id(tx.db, last.id)
    assert event is not None
    seconds = max(0, int(ago.total_seconds()))
    if exact:
        raise Repeat(RepeatAsk(view=view(event), seconds=seconds))
    if event.data.get("seats") != list(table.seats):  # someone sat down since: another hand
        return
    text = tx.ctx.text
    kept = nearbook.add_near(tx.db, tx.chat.id, event.id, same, text)
    added, dropped = differences(event.text, text)
    ask = RepeatAsk(view(event), seconds, kept, text, added, dropped)
    raise Repeat(ask)


def near_key(same: Any) -> Any:
    """What makes two records near repeats: a hand's winners with their way and payer, a 510K
    report's finishing order (None: anything else, never near)."""
    if not isinstance(same, dict):
        return None
    if same.get("_") == "Hu":
        ways = [(c["winner"], c["how"], c["source"]) for c in same["clauses"]]
        return sorted(ways, key=repr)
    if same.get("_") == "Report":
        return same["out"]
    return None


def differences(before: str, now: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The words typed now and not before, and before and not now (the command aside)."""
    old, new = before.split()[1:], now.split()[1:]
    return tuple(w for w in new if w not in old), tuple(w for w in old if w not in new)


def answer_key(req: Again | Answered) -> int:
    """The idempotency key of answering one question (in place of the update id): the same
    for every member and every press, so the first answer records and the others are told."""
    what = f"again:{req.event_id}" if isinstance(req, Again) else f"near:{req.near_id}"
    digest = hashlib.blake2b(what.encode(), digest_size=8).digest()
    return -(int.from_bytes(digest, "big") >> 1) - 1


def near_of(tx: Tx, req: Answered) -> tuple[EventRow, Recordable, str]:
    """The record a near repeat's answer names, its new content and the text it was typed as:
    of this chat, season and open table."""
    near = nearbook.near_by_id(tx.db, req.near_id)
    if near is None or near.chat_id != tx.chat.id:
        raise ServiceError(_STALE)
    event = check_again(tx, Again(near.event_id))
    request: Recordable = _decode(near.same)
    return event, request, near.text


def request_of(event: EventRow) -> Recordable:
    """The request a record's content makes, to record it once more."""
    same = event.data.get("same")
    if same is None:
        raise ServiceError(N_("That record cannot be recorded again; type it once more."))
    request: Recordable = _decode(same)
    return request


def check_again(tx: Tx, req: Again) -> EventRow:
    """The record a [Record again] button names: of this chat, season and open table."""
    event = book.event_by_id(tx.db, req.event_id)
    table = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if (
        event is None
        or event.chat_id != tx.chat.id
        or event.season_id != tx.season.id
        or table is None
        or event.table_id != table.id
    ):
        raise ServiceError(_STALE)
    return event


def _encode(value: Any, by_id: Callable[[PlayerRef], int]) -> Any:
    """`value` as JSON, each player reference as the id `by_id` resolves it to."""
    if isinstance(value, PlayerRef):
        return {"id": by_id(value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _encode(getattr(value, f.name), by_id) for f in dataclasses.fields(value)}
        return {"_": type(value).__name__, **fields}
    if isinstance(value, StrEnum):
        return {"_e": type(value).__name__, "v": value.value}
    if isinstance(value, Fraction):
        return {"_q": str(value)}
    if isinstance(value, tuple | list):
        return [_encode(v, by_id) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_decode(v) for v in value)
    if not isinstance(value, dict):
        return value
    if "id" in value and len(value) == 1:
        return PlayerRef(RefKind.ID, str(value["id"]))
    if "_e" in value:
        return _ENUMS[value["_e"]](value["v"])
    if "_q" in value:
        return Fraction(value["_q"])
    cls = _CLASSES[value["_"]]
    return cls(**{k: _decode(v) for k, v in value.items() if k != "_"})


def at_utc(moment: datetime) -> datetime:
    """A stored time as an aware UTC time (SQLite gives it back naive)."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)
