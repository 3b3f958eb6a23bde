"""/rating's sittings (`service.rating` computes them): a view of the ledger, one row per sitting
of a game in a chat, in the order of their first hands; and the chat's hands in order, to build
the view anew."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from sqlalchemy import bindparam, delete, func, select
from sqlalchemy.engine import Connection

from storage.gateway import Upsert, every, first
from storage.gateway.ledger import NUMBERED
from storage.models import RatingSittingRow, event, rating_sitting, transfer

_S = rating_sitting.c
_OF = (_S.chat_id == bindparam("chat_id"), _S.unit == bindparam("unit"))
_HOLDING = (  # a table's sitting that began last at or before event `seq`
    select(rating_sitting)
    .where(*_OF, _S.table_id == bindparam("table_id"), _S.first_seq <= bindparam("seq"))
    .order_by(_S.first_seq.desc())
    .limit(1)
)
_BEFORE = (
    select(_S.ratings).where(*_OF, _S.first_seq < bindparam("seq")).order_by(_S.first_seq.desc())
).limit(1)
_FROM = select(rating_sitting).where(*_OF, _S.first_seq >= bindparam("seq")).order_by(_S.first_seq)
_LATEST = select(rating_sitting).where(*_OF).order_by(_S.first_seq.desc()).limit(bindparam("n"))
_NEXT_UNIT = select(func.min(_S.unit)).where(
    _S.chat_id == bindparam("chat_id"), _S.unit > bindparam("after")
)
_SAVE = Upsert(
    rating_sitting,
    lambda stmt: stmt.on_conflict_do_update(
        index_elements=[_S.chat_id, _S.unit, _S.first_seq],
        set_={c: stmt.excluded[c] for c in ("table_id", "last_at", "hands", "nets", "ratings")},
    ),
)
_RECORDS = (  # a chat's hands and transfers in order, a row per payment (none: a row of Nones)
    select(event, *(transfer.c[c] for c in ("unit", "payer_id", "payee_id", "amount", "reason")))
    .select_from(event.outerjoin(transfer, transfer.c.event_id == event.c.id))
    .where(event.c.chat_id == bindparam("chat_id"), event.c.kind.in_(NUMBERED))
    .order_by(event.c.seq, transfer.c.id)
)
_OF_SEASON = _RECORDS.where(event.c.season_id == bindparam("season_id"))


def holding(
    db: Connection, chat_id: int, unit: str, table_id: int, seq: int
) -> RatingSittingRow | None:
    params = {"chat_id": chat_id, "unit": unit, "table_id": table_id, "seq": seq}
    return first(RatingSittingRow, db.execute(_HOLDING, params))


def ratings_before(db: Connection, chat_id: int, unit: str, seq: int) -> dict[str, Any]:
    """Everyone's ratings after the sitting before the one beginning at `seq` ({}: none)."""
    found = db.scalar(_BEFORE, {"chat_id": chat_id, "unit": unit, "seq": seq})
    return dict(found or {})


def sittings_from(db: Connection, chat_id: int, unit: str, seq: int) -> list[RatingSittingRow]:
    return every(
        RatingSittingRow, db.execute(_FROM, {"chat_id": chat_id, "unit": unit, "seq": seq})
    )


def latest(db: Connection, chat_id: int, unit: str, n: int) -> list[RatingSittingRow]:
    """The game's last `n` sittings, newest first."""
    return every(RatingSittingRow, db.execute(_LATEST, {"chat_id": chat_id, "unit": unit, "n": n}))


def units(db: Connection, chat_id: int) -> list[str]:
    """The games the chat has sittings of (one index seek each)."""
    found, after = [], ""
    while (unit := db.scalar(_NEXT_UNIT, {"chat_id": chat_id, "after": after})) is not None:
        found.append(after := str(unit))
    return found


def save(db: Connection, rows: list[RatingSittingRow]) -> None:
    if rows:
        db.execute(_SAVE.of(db), [row.model_dump() for row in rows])


def drop(db: Connection, chat_id: int) -> None:
    """Every sitting of the chat."""
    db.execute(delete(rating_sitting).where(_S.chat_id == chat_id))


def stream_records(db: Connection, chat_id: int, season_id: int | None = None) -> Iterator[Any]:
    """The chat's (or its season's) hands and transfers, undone ones too, in order, each row an
    event's columns and one of its payments' (unit, payer_id, payee_id, amount, reason)."""
    statement = _RECORDS if season_id is None else _OF_SEASON
    params = {"chat_id": chat_id, "season_id": season_id}
    yield from db.execute(statement, params, execution_options={"yield_per": 2000})
