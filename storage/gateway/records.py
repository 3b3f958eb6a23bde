"""A season's (or a chat's) records streamed whole, each with its payments: the one pass the
views derived from the ledger compute from (/stats, /me, /rating, a season's card). Rows are
read lean: a record's data once (not once per payment), amounts as ints where whole."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import String, bindparam, select, type_coerce
from sqlalchemy.engine import Connection

from scoring.games import EventKind
from scoring.hand_stats import Payment
from storage.models import event, transfer
from storage.types import exact_amount

HANDS = (EventKind.HAND.value,)
NUMBERED = (EventKind.HAND.value, EventKind.PAY.value)  # hands and transfers
BATCH = 2000  # rows fetched at a time (a round trip each on PostgreSQL)


@dataclass(slots=True)
class Record:
    """A hand or a transfer as the derived views read it; `unit`: its payments' (None: it has
    none, a drawn hand)."""

    id: int
    season_id: int
    table_id: int | None
    seq: int
    kind: str
    game: str
    hand_no: int | None
    created_at: datetime
    undone: bool
    data: dict[str, Any]
    unit: str | None = None
    payments: list[Payment] = field(default_factory=list)


_EVENTS = select(
    event.c.id,
    event.c.season_id,
    event.c.table_id,
    event.c.seq,
    event.c.kind,
    event.c.game,
    event.c.hand_no,
    event.c.created_at,
    event.c.undone_by,
    event.c.data,
)
_PAYMENTS = select(
    transfer.c.event_id,
    transfer.c.unit,
    transfer.c.payer_id,
    transfer.c.payee_id,
    type_coerce(transfer.c.amount, String),  # as stored: "45/2", "-3"
    transfer.c.reason,
).select_from(event.join(transfer, transfer.c.event_id == event.c.id))
_KINDS = event.c.kind.in_(bindparam("kinds", expanding=True))
_IN_SEASONS = (event.c.season_id.in_(bindparam("seasons", expanding=True)), _KINDS)
_IN_CHAT = (event.c.chat_id == bindparam("chat_id"), _KINDS)
#: Two streams in the same order (the chat's): the records, and their payments, merged by id
#: (a record's data is read once, not once per payment).
_OF_SEASONS = (
    _EVENTS.where(*_IN_SEASONS).order_by(event.c.seq),
    _PAYMENTS.where(*_IN_SEASONS).order_by(event.c.seq, transfer.c.id),
)
_OF_CHAT = (
    _EVENTS.where(*_IN_CHAT).order_by(event.c.seq),
    _PAYMENTS.where(*_IN_CHAT).order_by(event.c.seq, transfer.c.id),
)


def of_seasons(
    db: Connection, season_ids: Iterable[int], kinds: Sequence[str] = HANDS
) -> Iterator[Record]:
    """The seasons' records of `kinds` (hands by default), undone ones too, in the chat's order."""
    wanted = list(season_ids)
    if not wanted:
        return iter(())
    return _records(db, _OF_SEASONS, {"seasons": wanted, "kinds": list(kinds)})


def of_chat(db: Connection, chat_id: int, kinds: Sequence[str] = HANDS) -> Iterator[Record]:
    """Every record of `kinds` of the chat, in every season, undone ones too, in order."""
    return _records(db, _OF_CHAT, {"chat_id": chat_id, "kinds": list(kinds)})


def _records(
    db: Connection, statements: tuple[Any, Any], params: dict[str, Any]
) -> Iterator[Record]:
    streaming = {"yield_per": BATCH}
    events = db.execute(statements[0], params, execution_options=streaming)
    payments = iter(db.execute(statements[1], params, execution_options=streaming))
    pending = next(payments, None)
    for event_id, season_id, table_id, seq, kind, game, hand_no, at, undone_by, data in events:
        record = Record(
            event_id,
            season_id,
            table_id,
            seq,
            kind,
            game,
            hand_no,
            at,
            undone_by is not None,
            data or {},
        )
        while pending is not None and pending[0] == event_id:
            _, unit, payer, payee, amount, reason = pending
            record.unit = unit
            record.payments.append(Payment(payer, payee, exact_amount(amount), reason))
            pending = next(payments, None)
        yield record
