"""The ledger's views and its one correction: /undo (a recorded reversal, never a deletion)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

from sqlalchemy.engine import Connection

from scoring.games import EventKind, Game
from service import repeats
from service.errors import N_, Forbidden, ServiceError
from service.hand_views import HandView, seat_ids, view_of
from service.names import told_apart
from service.replies import Info, UndoAsk, Undone, UndoPick
from service.requests import Undo
from service.squaring import hand_par, par_weights, record_par
from service.unit import Tx
from storage.gateway import ledger as book
from storage.gateway import players, tables
from storage.gateway.chats import Tail
from storage.models import EventRow, PlayerRow, TableRow, TransferRow


def hand_views(db: Connection, events: Sequence[EventRow]) -> list[HandView]:
    """Events with their payments and the payers' names, in the given order."""
    by_event = book.transfers_of(db, [e.id for e in events])
    names = player_names(
        db,
        [
            pid
            for transfers in by_event.values()
            for t in transfers
            for pid in (t.payer_id, t.payee_id)
            if pid is not None
        ]
        + [pid for e in events for pid in seat_ids(e)],
    )
    return [view_of(e, by_event.get(e.id, []), names) for e in events]


def view_with(db: Connection, event: EventRow, transfers: Sequence[TransferRow]) -> HandView:
    """The view of `event` with these payments (a version of a corrected record)."""
    return view_of(event, transfers, player_names(db, [*_people(transfers), *seat_ids(event)]))


def player_names(db: Connection, ids: Sequence[int]) -> dict[int, str]:
    """Names by player id; two of one name told apart (`David`, `David (2)`)."""
    return told_apart((pid, p.name) for pid, p in players.players_by_id(db, ids).items())


def fresh_view(
    event: EventRow, transfers: Sequence[TransferRow], people: Sequence[PlayerRow]
) -> HandView:
    """The view of an event just written, from what the use case holds (no reading back)."""
    return view_of(event, transfers, {p.id: p.name for p in people})


def recorded_view(
    tx: Tx, event: EventRow, transfers: Sequence[TransferRow], people: Sequence[PlayerRow]
) -> HandView:
    """`fresh_view`, also naming whoever its payments name who is not seated (a kong of a
    player who left by /sub, a marathon's share of a replaced partner)."""
    seated = {p.id for p in people}
    gone = {pid for pid in _people(transfers) if pid not in seated}
    names = {p.id: p.name for p in people} | player_names(tx.db, list(gone))
    return view_of(event, transfers, names)


def undo(tx: Tx, req: Undo) -> Undone | UndoAsk | UndoPick | Info:
    """Revert one record by appending an undo that names it. The table's last record is
    reverted as if never written (a hand's dealer comes back, its kongs are pending again); an
    older hand takes its kongs along and leaves the dealer as is."""
    target = _target(tx, req)
    if target is None or isinstance(target, UndoAsk | UndoPick):
        return target or Info(N_("Nothing to undo."))
    table = tables.table_by_id(tx.db, target.table_id) if target.table_id else None
    last = _last_record(tx, target)
    newest = last is not None and last.id == target.id
    if table is not None and target.kind == EventKind.HAND:
        if table.marathon and not newest:
            raise ServiceError(
                N_(
                    "In a marathon only the table's last hand can be undone: the running totals"
                    " go on from it. Undo the hands after #{n} first."
                ),
                n=target.hand_no,
            )
    elif target.kind == EventKind.KONG and not pending_kong(tx, target):
        raise ServiceError(N_("That kong was paid with its hand: undo the hand instead."))
    record = mark(tx, target, EventKind.UNDO)
    tx.event_id, tx.tail = record.id, None  # the table's records changed
    book.mark_undone(tx.db, target.id, record.id)
    target.undone_by = record.id
    # The last hand's kongs and dealer come back only to the seating they were recorded at.
    newest = newest and table is not None and target.data.get("seats", table.seats) == table.seats
    if target.kind == EventKind.HAND and not newest:
        for kong in book.kongs_of_hand(tx.db, target):
            book.mark_undone(tx.db, kong.id, record.id)
    transfers = book.transfers_of(tx.db, [target.id]).get(target.id, [])
    if transfers:
        seats = target.data.get("seats") or (table.seats if table is not None else ())
        par = record_par(target.kind, target.data, transfers, seats)
        unit = transfers[0].unit
        book.revert_transfers(tx.db, transfers, season_id=target.season_id, unit=unit, par=par)
    dealer = None
    if (
        newest
        and table is not None
        and target.kind == EventKind.HAND
        and target.game == Game.MAHJONG
    ):
        table.dealer = int(target.data["dealer_before"])
        tables.set_dealer(tx.db, table.id, table.dealer)
        dealer_id = table.seats[table.dealer]
        dealer = players.players_by_id(tx.db, [dealer_id])[dealer_id].name
    view = view_of(target, transfers, player_names(tx.db, [*_people(transfers), *seat_ids(target)]))
    return Undone(view=view, dealer=dealer)


def _people(transfers: Sequence[TransferRow]) -> list[int]:
    return [pid for t in transfers for pid in (t.payer_id, t.payee_id) if pid is not None]


def _last_record(tx: Tx, event: EventRow) -> EventRow | None:
    """The table's last hand or kong: a transfer (/pay) after a hand changes neither the dealer
    nor the kongs nor a marathon, so that hand is still the last."""
    return book.last_live_event(
        tx.db, event.table_id or 0, event.season_id, (EventKind.HAND, EventKind.KONG)
    )


def pending_kong(tx: Tx, kong: EventRow) -> bool:
    """Whether a kong belongs to the hand being played (no live hand after it)."""
    hand = book.last_live_event(tx.db, kong.table_id or 0, kong.season_id, (EventKind.HAND,))
    return hand is None or hand.seq < kong.seq


def _target(tx: Tx, req: Undo) -> EventRow | UndoAsk | UndoPick | None:
    if req.event_id is not None:
        return _check(tx, book.event_by_id(tx.db, req.event_id))
    table = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if req.hand_no is not None:
        return _numbered(tx, req.hand_no)
    if table is None:
        return None
    kinds = (*book.RECORDS, EventKind.UNDO)
    latest = book.last_live_event(tx.db, table.id, tx.season.id, kinds)
    if latest is None:
        return None
    if req.confirm and latest.kind != EventKind.UNDO:
        raise ServiceError(
            N_(
                "Nothing is waiting for a confirmation: /undo confirm answers the question after"
                " another member's undo. To undo the table's last record, send /undo."
            )
        )
    if latest.kind == EventKind.UNDO:
        target = book.last_live_event(tx.db, table.id, tx.season.id)
        if target is not None and not req.confirm and latest.recorded_by != tx.ctx.actor.user_id:
            return UndoAsk(target.id, target.hand_no, target.text, latest.recorded_by_name)
        return target
    return latest


def _numbered(tx: Tx, hand_no: int) -> EventRow | UndoPick:
    """`/undo <n>`: the record /history numbers #n (numbers count per table): the one there
    is, or, where several tables of the season (of this chat, or of this forum topic) have a
    live #n, the question which."""
    here = tx.ctx.thread_id  # a forum topic's tables (each topic numbers its own)
    found = [
        e
        for e in book.hands_numbered(tx.db, tx.season.id, hand_no)
        if (t := tables.table_by_id(tx.db, e.table_id or 0)) is not None and t.thread_id == here
    ]
    if not found:
        raise ServiceError(
            N_("This season has no hand #{n}; /history lists the hands with their numbers."),
            n=hand_no,
        )
    live = [e for e in found if e.undone_by is None]
    if len(live) > 1:
        return UndoPick(hand_no, tuple(hand_views(tx.db, live)))
    return _check(tx, live[0] if live else found[-1])


#: The refusal of an Undo whose record is undone already (its button then says so, disabled).
ALREADY_UNDONE = N_("That record was already undone.")


def _check(tx: Tx, event: EventRow | None) -> EventRow:
    """A record named by a button, a reply or its number: may this member undo it?"""
    if event is None or event.chat_id != tx.chat.id or event.kind not in book.RECORDS:
        raise ServiceError(N_("That record does not belong to this chat."))
    if event.undone_by is not None:
        raise ServiceError(ALREADY_UNDONE)
    if event.season_id != tx.season.id:
        raise ServiceError(N_("That record belongs to an archived season."))
    here = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if (here is None or event.table_id != here.id) and not tx.ctx.is_admin:
        raise Forbidden(N_("That record belongs to another table; only group admins can undo it."))
    return event


def pay_out(
    tx: Tx,
    table: TableRow,
    event: EventRow,
    transfers: Sequence[TransferRow],
    *,
    unit: str,
    balances: Mapping[int, book.Held | None],
) -> dict[int, Fraction | int]:
    """A record's payments written and the season's balances moved by them (`balances`: the
    seated players' before, `seated_with_balances`), and their pars (not zero-sum: the
    average goes to the seats; a marathon of four: as its score is shared). Returns the
    balances after it, by player id."""
    return book.add_transfers(
        tx.db,
        transfers,
        season_id=tx.season.id,
        unit=unit,
        seated=table.seats,
        balances=balances,
        par=hand_par(transfers, table.seats, par_weights(event.data)),
    )


def mark(tx: Tx, target: EventRow, kind: EventKind, names: int | None = None) -> EventRow:
    """An undo or a correction of record `target` (`names`: the event it undoes, when that is
    not the record itself but its correction), by whoever asks, at the service's clock."""
    return book.add_event(
        tx.db,
        tx.chat,
        season_id=target.season_id,
        table_id=target.table_id,
        kind=kind,
        game=target.game,
        text=tx.ctx.text,
        data={"target": target.id if names is None else names, "hand_no": target.hand_no},
        recorded_by=tx.ctx.actor.recorder_id,
        recorded_by_name=tx.ctx.actor.name,
        at=tx.now,
    )


def record(
    tx: Tx,
    table: TableRow,
    kind: EventKind,
    data: dict[str, Any],
    tiles: str = "",
    *,
    same: Any = None,
) -> EventRow:
    """Append a hand or kong of `table` to the ledger (numbered in the chat); `tiles`: a hand's
    winning tiles, for /export; `same`: its content (`service.repeats.content`), kept with it,
    and the two-minute rule checked first (raises `repeats.Repeat`: nothing is written)."""
    if same is not None:
        if tx.editing is None:
            repeats.guard(tx, table, same, lambda last: hand_views(tx.db, [last])[0])
        data = {**data, "same": same}
    if tx.editing is not None:  # /edit: the record keeps its number, place and recorder
        return _rewritten(tx, tx.editing, data, tiles)
    event = book.add_event(
        tx.db,
        tx.chat,
        season_id=tx.season.id,
        table_id=table.id,
        kind=kind,
        game=table.game,
        text=tx.ctx.text,
        data=data,
        recorded_by=tx.ctx.actor.recorder_id,
        recorded_by_name=tx.ctx.actor.name,
        tiles=tiles,
        at=tx.now,
    )
    tx.event_id, tx.tail = event.id, None  # the table's records changed
    return event


def _rewritten(tx: Tx, target: EventRow, data: dict[str, Any], tiles: str) -> EventRow:
    """The record `target` saying what the correction says (`service.edit`): its content
    rewritten, its list of edits carried on (the edit is `tx.event_id`)."""
    edits = [*target.data.get("edits", []), tx.event_id]
    data = {**data, "edits": edits}
    text = tx.ctx.text
    book.rewrite(tx.db, target.id, text=text, data=data, tiles=tiles)
    tx.tail = None
    return target.model_copy(update={"data": data, "text": text, "tiles": tiles})


def table_tail(tx: Tx, table: TableRow) -> Tail | None:
    """The table's `Tail` as the write's first statement read it, while it holds (nothing
    recorded since, the same table)."""
    tail = tx.tail
    return tail if tail is not None and tail.table_id == table.id else None
