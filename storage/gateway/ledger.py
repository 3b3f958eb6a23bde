"""The append-only ledger: events (hands, kongs, transfers, undos), their transfers, and the
season balances kept beside them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import String, and_, bindparam, case, func, insert, select, type_coerce, update
from sqlalchemy.engine import Connection

from scoring.games import EventKind, Game
from storage.gateway import Upsert, every, first, shaped
from storage.models import (
    BalanceRow,
    ChatRow,
    EventRow,
    PlayerRow,
    TransferRow,
    balance,
    event,
    player,
    reminder,
    transfer,
    utcnow,
)
from storage.types import exact_amount

RECORDS = (EventKind.HAND, EventKind.KONG, EventKind.PAY, EventKind.FEE)  # what /undo reverts
NUMBERED = (  # what takes a hand number: /history's
    EventKind.HAND.value,
    EventKind.PAY.value,
    EventKind.FEE.value,
)
TAIL_PAGES = (2, 16)  # rows read: the newest first (usually a hand), then more at a time
NEWEST = 2**31 - 1  # above every event number (an INTEGER), and a LIMIT of "all"
EXPORT_BATCH = 5000  # rows fetched at a time (a round trip each on PostgreSQL)

_OF_TABLE = (event.c.table_id == bindparam("table_id"), event.c.season_id == bindparam("season_id"))
_LIVE = event.c.undone_by.is_(None)
_NEXT_HAND_NO = (  # a table's next hand number in the season (its unique index serves it)
    select(func.coalesce(func.max(event.c.hand_no), 0) + 1)
    .where(event.c.table_id == bindparam("of_table"), event.c.season_id == bindparam("of_season"))
    .scalar_subquery()
)
_NEXT_SEQ = (  # the chat's next event number (the chat's row is locked: it stays gapless)
    select(func.coalesce(func.max(event.c.seq), 0) + 1)
    .where(event.c.chat_id == bindparam("of_chat"))
    .scalar_subquery()
)
_ADDED = (event.c.id, event.c.seq, event.c.hand_no)
_KINDS: Any = bindparam("kinds", expanding=True)  # what an export lists (`TRAIL`: versions too)
TRAIL = (*NUMBERED, EventKind.VERSION.value)  # /export all: the versions /edit replaced too
_ADD_HAND = insert(event).values(seq=_NEXT_SEQ, hand_no=_NEXT_HAND_NO).returning(*_ADDED)
_ADD_EVENT = insert(event).values(seq=_NEXT_SEQ).returning(*_ADDED)
_MARK_UNDONE = update(event).where(event.c.id == bindparam("event_id"))
_REWRITE = update(event).where(event.c.id == bindparam("event_id"))
_MOVE_TRANSFERS = update(transfer).where(transfer.c.id.in_(bindparam("ids", expanding=True)))
_BY_ID = select(event).where(event.c.id == bindparam("event_id"))
_LAST_LIVE = (
    select(event)
    .where(*_OF_TABLE, event.c.kind.in_(bindparam("kinds", expanding=True)), _LIVE)
    .order_by(event.c.seq.desc())
    .limit(1)
)
_LAST_ANY = (  # the table's newest record, undone or not (the two-minute rule's "last record")
    select(event)
    .where(*_OF_TABLE, event.c.kind.in_(bindparam("kinds", expanding=True)))
    .order_by(event.c.seq.desc())
    .limit(1)
)
_HANDS_NUMBERED = (  # the season's records that carry a hand number, of every table
    select(event)
    .where(
        event.c.season_id == bindparam("season_id"),
        event.c.hand_no == bindparam("hand_no"),
        event.c.kind.in_(NUMBERED),
    )
    .order_by(event.c.seq)
)
_hand_before = (
    select(func.max(event.c.seq))
    .where(*_OF_TABLE, event.c.kind == EventKind.HAND.value, _LIVE, event.c.seq < bindparam("seq"))
    .scalar_subquery()
)
_KONGS_OF_HAND = (
    select(event)
    .where(
        *_OF_TABLE,
        event.c.kind == EventKind.KONG.value,
        _LIVE,
        event.c.seq < bindparam("seq"),
        event.c.seq > func.coalesce(_hand_before, 0),
    )
    .order_by(event.c.seq)
)
# A table's tail: the kongs' data (they are replayed), not the hands' (the biggest rows).
_TAIL = (
    select(
        *(
            case((event.c.kind == EventKind.KONG.value, c), else_=None).label("data")
            if c.key == "data"
            else c
            for c in event.c
        )
    )
    .where(
        *_OF_TABLE,
        event.c.seq < bindparam("before"),
        event.c.kind.in_([EventKind.HAND.value, EventKind.KONG.value]),
        _LIVE,
    )
    .order_by(event.c.seq.desc())
    .limit(bindparam("page"))
)
_HANDS = (
    select(event)
    .where(
        event.c.season_id == bindparam("season_id"),
        event.c.kind.in_(NUMBERED),
        event.c.seq < bindparam("before"),
        event.c.seq >= bindparam("since"),
    )
    .order_by(event.c.seq.desc())
    .limit(bindparam("limit"))
)
_TRANSFERS_OF = (
    select(transfer)
    .where(transfer.c.event_id.in_(bindparam("ids", expanding=True)))
    .order_by(transfer.c.id)
)
_ADD_TRANSFERS = insert(transfer)
_MOVE_BALANCES = Upsert(
    balance,
    lambda stmt: stmt.on_conflict_do_update(
        index_elements=[balance.c.season_id, balance.c.player_id, balance.c.unit],
        set_={"amount": stmt.excluded.amount, "par": stmt.excluded.par},
    ),
)
_BALANCES_OF = select(balance.c.player_id, balance.c.amount, balance.c.par).where(
    balance.c.season_id == bindparam("season_id"),
    balance.c.unit == bindparam("unit"),
    balance.c.player_id.in_(bindparam("ids", expanding=True)),
)
_SEATED = (
    select(player, balance.c.amount, balance.c.par, reminder.c.player_id)
    .select_from(
        player.outerjoin(
            balance,
            and_(
                balance.c.player_id == player.c.id,
                balance.c.season_id == bindparam("season_id"),
                balance.c.unit == bindparam("unit"),
            ),
        ).outerjoin(
            reminder,
            and_(
                reminder.c.player_id == player.c.id,
                reminder.c.season_id == bindparam("season_id"),
                reminder.c.hint == bindparam("hint"),
            ),
        )
    )
    .where(player.c.id.in_(bindparam("ids", expanding=True)))
)
_SEASON_BALANCES = select(balance).where(balance.c.season_id == bindparam("season_id"))


def _tail_event(row: Any) -> EventRow:
    """A table's tail's event (a hand without its data)."""
    return EventRow.model_construct(**{**row._mapping, "data": row.data or {}})


def add_event(
    db: Connection,
    chat: ChatRow,
    *,
    season_id: int,
    table_id: int | None,
    kind: EventKind,
    game: str,
    text: str,
    data: dict[str, Any],
    recorded_by: int | None,
    recorded_by_name: str,
    tiles: str = "",
    at: datetime | None = None,
) -> EventRow:
    """Append an event numbered in the chat (1, 2, …); a hand (or a transfer) also takes its
    table's next hand number in the season. The chat's row is locked, so both stay gapless."""
    values: dict[str, Any] = {
        "chat_id": chat.id,
        "season_id": season_id,
        "table_id": table_id,
        "kind": kind.value,
        "game": game,
        "text": text,
        "data": data,
        "recorded_by": recorded_by,
        "recorded_by_name": recorded_by_name,
        "created_at": utcnow() if at is None else at,
        "tiles": tiles,
    }
    if kind.value in NUMBERED:
        numbering = {"of_chat": chat.id, "of_table": table_id, "of_season": season_id}
        event_id, seq, hand_no = db.execute(_ADD_HAND, {**values, **numbering}).one()
    else:
        event_id, seq, hand_no = db.execute(_ADD_EVENT, {**values, "of_chat": chat.id}).one()
    return EventRow(id=event_id, seq=seq, hand_no=hand_no, **values)


_SEQ_AFTER = select(func.coalesce(func.max(event.c.seq), 0) + 1).where(
    event.c.chat_id == bindparam("chat_id")
)


def next_seq(db: Connection, chat_id: int) -> int:
    """The number the chat's next event will take."""
    return int(db.execute(_SEQ_AFTER, {"chat_id": chat_id}).scalar_one())


def mark_undone(db: Connection, event_id: int, undo_id: int | None) -> None:
    """The undo that reverted a record (None: live again, as a correction leaves the record
    it took out of the table's live records while it was scored)."""
    db.execute(_MARK_UNDONE, {"event_id": event_id, "undone_by": undo_id})


def rewrite(db: Connection, event_id: int, *, text: str, data: dict[str, Any], tiles: str) -> None:
    """A corrected record's content (`service.edit`): what it says now; what it said before
    is kept whole in the edit that corrected it."""
    db.execute(_REWRITE, {"event_id": event_id, "text": text, "data": data, "tiles": tiles})


def rewrite_data(db: Connection, event_id: int, data: dict[str, Any]) -> None:
    """An event's data completed once it is written (a correction names its version kept)."""
    db.execute(_REWRITE, {"event_id": event_id, "data": data})


def move_transfers(db: Connection, transfer_ids: Sequence[int], event_id: int) -> None:
    """Payments handed to another record, kept (`service.edit`): a corrected record's old ones
    to the edit that replaced them, and back when that edit is undone."""
    if transfer_ids:
        db.execute(_MOVE_TRANSFERS, {"ids": list(transfer_ids), "event_id": event_id})


def apply_transfers(
    db: Connection,
    transfers: Sequence[TransferRow],
    *,
    season_id: int,
    unit: str,
    par: Mapping[int, Fraction] | None = None,
) -> None:
    """Payments already written that count again (an undone edit's): the season balances and
    pars move by them, as `add_transfers` moves them for new ones."""
    _move_balances(db, season_id, unit, _deltas(transfers, 1, {}), dict(par or {}), {})


def event_by_id(db: Connection, event_id: int) -> EventRow | None:
    return first(EventRow, db.execute(_BY_ID, {"event_id": event_id}))


def last_live_event(
    db: Connection, table_id: int, season_id: int, kinds: Sequence[EventKind] = RECORDS
) -> EventRow | None:
    """The table's newest event of the season of these kinds that is not undone, with its data."""
    params = {"table_id": table_id, "season_id": season_id, "kinds": [k.value for k in kinds]}
    return first(EventRow, db.execute(_LAST_LIVE, params))


def now() -> datetime:
    """The ledger's clock: the time a record written now is stamped with."""
    return utcnow()


def last_record(db: Connection, table_id: int, season_id: int) -> EventRow | None:
    """The table's newest hand, kong or transfer of the season, undone or not."""
    params = {"table_id": table_id, "season_id": season_id, "kinds": [k.value for k in RECORDS]}
    return first(EventRow, db.execute(_LAST_ANY, params))


def hands_numbered(db: Connection, season_id: int, hand_no: int) -> list[EventRow]:
    """The season's hands and transfers numbered `hand_no`, one per table that has one."""
    params = {"season_id": season_id, "hand_no": hand_no}
    return every(EventRow, db.execute(_HANDS_NUMBERED, params))


def kongs_of_hand(db: Connection, hand: EventRow) -> list[EventRow]:
    """The live kongs a hand settled: its table's, after the live hand before it."""
    params = {"table_id": hand.table_id, "season_id": hand.season_id, "seq": hand.seq}
    return every(EventRow, db.execute(_KONGS_OF_HAND, params))


def live_tail(db: Connection, table_id: int, season_id: int) -> list[EventRow]:
    """The table's live hands and kongs of the season, newest first, down to and including its
    newest hand: the kongs of the hand being played (with their data), and the hand before
    them (without: it is not needed, and it is the biggest)."""
    tail: list[EventRow] = []
    params = {"table_id": table_id, "season_id": season_id, "before": NEWEST, "page": TAIL_PAGES[0]}
    while True:
        rows = db.execute(_TAIL, params).all()
        for row in rows:
            tail.append(_tail_event(row))
            if tail[-1].kind == EventKind.HAND:
                return tail
        if len(rows) < params["page"]:
            return tail
        params.update(before=tail[-1].seq, page=TAIL_PAGES[1])


def hands(
    db: Connection,
    season_id: int,
    *,
    limit: int | None = None,
    before: int | None = None,
    since: int = 0,
) -> list[EventRow]:
    """The season's hands, transfers and fees, undone ones too, newest first (of the chat's
    records numbered from `since` and below `before`)."""
    params = {
        "season_id": season_id,
        "limit": NEWEST if limit is None else limit,
        "before": NEWEST if before is None else before,
        "since": since,
    }
    return every(EventRow, db.execute(_HANDS, params))


def transfers_of(db: Connection, event_ids: Sequence[int]) -> dict[int, list[TransferRow]]:
    """These events' transfers, by event id, in recorded order."""
    out: dict[int, list[TransferRow]] = {}
    if event_ids:
        for row in db.execute(_TRANSFERS_OF, {"ids": list(event_ids)}):
            out.setdefault(row.event_id, []).append(TransferRow.model_construct(**row._mapping))
    return out


Held = tuple[Fraction | int, Fraction | int]  # a balance row's (amount, par)


@dataclass(frozen=True)
class Seated:
    """A table's players in seat order, read before a record is written: their balances in the
    record's unit this season (amount and par; None: no row yet), and who of them had `hint`
    this season (`reminders`)."""

    people: list[PlayerRow]
    balances: dict[int, Held | None]
    reminded: frozenset[int]


def add_transfers(
    db: Connection,
    transfers: Sequence[TransferRow],
    *,
    season_id: int,
    unit: str,
    seated: Iterable[int],
    balances: Mapping[int, Held | None] | None = None,
    par: Mapping[int, Fraction] | None = None,
) -> dict[int, Fraction | int]:
    """Write a record's transfers and move the season balances by them, and their pars by
    `par` (by player id), in one statement; every seated player gets a balance row (zero at
    first) so standings list them. `balances` are those read before (`seated`; None: no row
    yet); any other is read here. Returns the balances after it, by player id."""
    if transfers:
        db.execute(_ADD_TRANSFERS, [t.model_dump(exclude={"id"}) for t in transfers])
    deltas = _deltas(transfers, 1, dict.fromkeys(seated, 0))
    return _move_balances(db, season_id, unit, deltas, par or {}, balances or {})


def revert_transfers(
    db: Connection,
    transfers: Sequence[TransferRow],
    *,
    season_id: int,
    unit: str,
    par: Mapping[int, Fraction] | None = None,
) -> None:
    """An undone record's transfers leave the season balances, its pars (`par`: what it
    added) their pars."""
    back = {pid: -value for pid, value in (par or {}).items()}
    _move_balances(db, season_id, unit, _deltas(transfers, -1, {}), back, {})


def _deltas(
    transfers: Sequence[TransferRow], sign: int, deltas: dict[int, Fraction | int]
) -> dict[int, Fraction | int]:
    """Each player's balance change by `transfers` (sign -1: by their reversal)."""
    for t in transfers:
        if t.payer_id is not None:
            deltas[t.payer_id] = deltas.get(t.payer_id, 0) - sign * t.amount
        if t.payee_id is not None:
            deltas[t.payee_id] = deltas.get(t.payee_id, 0) + sign * t.amount
    return deltas


def _move_balances(
    db: Connection,
    season_id: int,
    unit: str,
    deltas: Mapping[int, Fraction | int],
    pars: Mapping[int, Fraction],
    known: Mapping[int, Held | None],
) -> dict[int, Fraction | int]:
    """Add `deltas` and `pars` (by player id) to the season's balances in `unit` and their
    pars, and return the balances after. What they add to is `known` (None: no row), or read
    first."""
    have = {pid: held for pid, held in known.items() if held is not None}
    touched = {**dict.fromkeys(deltas), **dict.fromkeys(pars)}
    unknown = [pid for pid in touched if pid not in known]
    if unknown:
        params = {"season_id": season_id, "unit": unit, "ids": unknown}
        have.update((pid, (amount, par)) for pid, amount, par in db.execute(_BALANCES_OF, params))
    after = {pid: have.get(pid, (0, 0))[0] + delta for pid, delta in deltas.items()}
    moved = [
        {
            "season_id": season_id,
            "player_id": pid,
            "unit": unit,
            "amount": have.get(pid, (0, 0))[0] + deltas.get(pid, 0),
            "par": have.get(pid, (0, 0))[1] + pars.get(pid, 0),
        }
        for pid in touched
        if deltas.get(pid) or pars.get(pid) or pid not in have
    ]
    if moved:
        db.execute(_MOVE_BALANCES.of(db), moved)
    return after


def seated(
    db: Connection, seats: Sequence[int], season_id: int, unit: str, hint: str | None = None
) -> Seated:
    """A table's players, their balances in `unit` this season and who had `hint`, in one
    statement: what a record reads before it writes."""
    params = {"season_id": season_id, "unit": unit, "ids": list(seats), "hint": hint or ""}
    found = {row.id: row for row in db.execute(_SEATED, params)}
    width = len(player.c)
    people = [shaped(PlayerRow, player, found[pid][:width]) for pid in seats]
    balances: dict[int, Held | None] = {}
    for pid in seats:
        amount, par, _ = found[pid][width:]
        balances[pid] = None if amount is None else (amount, par)
    reminded = frozenset(pid for pid in seats if found[pid][-1] is not None)
    return Seated(people, balances, reminded)


def balances(db: Connection, season_id: int) -> list[BalanceRow]:
    """The season's balances, every unit."""
    return every(BalanceRow, db.execute(_SEASON_BALANCES, {"season_id": season_id}))


# --- a season's whole ledger, streamed (/chart, /export): lean rows, never all in memory ---

_LIVE_PAYMENTS = (
    select(
        event.c.id,
        event.c.game,
        transfer.c.unit,
        transfer.c.payer_id,
        transfer.c.payee_id,
        type_coerce(transfer.c.amount, String),  # as stored: read as an int where whole
    )
    .select_from(event.outerjoin(transfer, transfer.c.event_id == event.c.id))
    .where(event.c.season_id == bindparam("season_id"), event.c.kind.in_(NUMBERED), _LIVE)
    .order_by(event.c.seq, transfer.c.id)
)
_LIVE_COUNTS = (  # a record's transfers share a unit; a record without any: its game's
    select(transfer.c.unit, event.c.game, func.count(event.c.id.distinct()))
    .select_from(event.outerjoin(transfer, transfer.c.event_id == event.c.id))
    .where(event.c.season_id == bindparam("season_id"), event.c.kind.in_(NUMBERED), _LIVE)
    .group_by(transfer.c.unit, event.c.game)
)
_LIVE_HANDS = select(func.count(event.c.id)).where(
    event.c.season_id == bindparam("season_id"), event.c.kind == EventKind.HAND.value, _LIVE
)
_EXPORT_SIZE = (
    select(
        func.count(transfer.c.id),
        func.count(event.c.id.distinct()),
        func.min(event.c.seq),
        func.max(event.c.seq),
    )
    .select_from(event.join(transfer, transfer.c.event_id == event.c.id))
    .where(event.c.season_id == bindparam("season_id"), event.c.kind.in_(_KINDS))
)

PaymentLine = tuple[int, str, str | None, int | None, int | None, Fraction | int | None]
ExportLine = tuple[
    str, int | None, str, str, str | None, str | None, str, str, str, int, str, int, int
]


def stream_live_payments(db: Connection, season_id: int) -> Iterator[PaymentLine]:
    """(event id, game, unit, payer, payee, amount) of the season's live hands and transfers in
    order, one row per transfer (a hand without any: one row of Nones), streamed."""
    params = {"season_id": season_id}
    rows = db.execute(_LIVE_PAYMENTS, params, execution_options={"yield_per": 2000})
    for event_id, game, unit, payer, payee, amount in rows:
        yield event_id, game, unit, payer, payee, None if amount is None else exact_amount(amount)


def live_counts(db: Connection, season_id: int) -> dict[str, int]:
    """Each unit's live records (hands and transfers) in the season."""
    counts: dict[str, int] = {}
    for unit, game, n in db.execute(_LIVE_COUNTS, {"season_id": season_id}):
        key = unit or Game(game).unit.value
        counts[key] = counts.get(key, 0) + int(n)
    return counts


def live_hands(db: Connection, season_id: int) -> int:
    """The season's hands, as /summary, /chart and /export count them: each hand or round
    recorded and not undone (a marathon's every hand, a drawn hand); kongs, transfers and
    undone hands are not hands."""
    return int(db.execute(_LIVE_HANDS, {"season_id": season_id}).scalar_one())


def export_size(
    db: Connection, season_id: int, kinds: Sequence[str] = NUMBERED
) -> tuple[int, int, range]:
    """(payments, hands and transfers, the range of their seq) of the season, undone ones too
    (`kinds`: `TRAIL`, the versions /edit replaced too)."""
    params = {"season_id": season_id, "kinds": list(kinds)}
    rows, hands_, first, last = db.execute(_EXPORT_SIZE, params).one()
    return int(rows or 0), int(hands_ or 0), range(int(first or 0), int(last or 0) + 1)


def _export_statement(pg: bool) -> Any:
    at = (
        func.to_char(func.timezone("UTC", event.c.created_at), "YYYY-MM-DD HH24:MI:SS")
        if pg
        else func.substr(type_coerce(event.c.created_at, String), 1, 19)  # UTC text
    )
    payer, payee = player.alias("payer"), player.alias("payee")
    return (
        select(
            at,
            func.coalesce(event.c.hand_no, event.c.data["hand_no"].as_integer()),  # a version's
            event.c.game,
            transfer.c.unit,
            payer.c.name,
            payee.c.name,
            type_coerce(transfer.c.amount, String),  # as stored: "45/2", "-3"
            transfer.c.reason,
            event.c.recorded_by_name,
            case((event.c.undone_by.is_(None), 0), else_=1),
            event.c.tiles,
            event.c.table_id,
            case((event.c.data["edits"].as_string().is_(None), 0), else_=1),  # by /edit
        )
        .select_from(
            event.join(transfer, transfer.c.event_id == event.c.id)
            .outerjoin(payer, payer.c.id == transfer.c.payer_id)
            .outerjoin(payee, payee.c.id == transfer.c.payee_id)
        )
        .where(
            event.c.chat_id == bindparam("chat_id"),
            event.c.seq.between(bindparam("first"), bindparam("last")),
            # not by the (season, kind, seq) index, whose order is by kind first: the chat's
            # seq order needs no sort
            (event.c.season_id + 0) == bindparam("season_id"),
            event.c.kind.in_(_KINDS),
        )
        .order_by(event.c.seq, transfer.c.id)
    )


_EXPORT = {"sqlite": _export_statement(False), "postgresql": _export_statement(True)}


def stream_export(
    db: Connection, chat_id: int, season_id: int, seqs: range, kinds: Sequence[str] = NUMBERED
) -> Iterator[ExportLine]:
    """(UTC time to the second as "YYYY-MM-DD HH:MM:SS", hand number, game, unit, payer's name
    (None: the table), payee's name, amount as stored ("45/2", "-3"), reason, recorded by,
    undone 1 or 0, the hand's tiles, its table's id, corrected by /edit 1 or 0) of every
    payment of the chat's season's hands and transfers in `seqs`, undone ones too, in
    recorded order (`kinds`: `TRAIL`, the versions /edit replaced too, each with its record's
    number); the database does the per-row work."""
    params = {"chat_id": chat_id, "season_id": season_id, "first": seqs.start, "kinds": kinds}
    params["last"] = seqs.stop - 1
    streaming = {"yield_per": EXPORT_BATCH}
    for row in db.execute(_EXPORT[db.dialect.name], params, execution_options=streaming):
        yield tuple(row)
