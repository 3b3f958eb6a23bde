"""The ledger's views and its one correction: /undo (a recorded reversal, never a deletion)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scoring.games import EventKind, Game
from service.errors import N_, Forbidden, ServiceError
from service.replies import HandView, Info, Payment, Undone
from service.requests import Undo
from service.unit import Tx
from storage.gateway import ledger as book
from storage.gateway import players, stats, tables
from storage.rows import EventRow, PlayerRow, TableRow, TransferRow
from storage.sql import Sql


def hand_views(db: Sql, events: Sequence[EventRow]) -> list[HandView]:
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
        ],
    )
    return [_view(e, by_event.get(e.id, []), names) for e in events]


def player_names(db: Sql, ids: Sequence[int]) -> dict[int, str]:
    """Names by player id."""
    return {pid: p.name for pid, p in players.players_by_id(db, ids).items()}


def fresh_view(
    event: EventRow, transfers: Sequence[TransferRow], people: Sequence[PlayerRow]
) -> HandView:
    """The view of an event just written, from what the use case holds (no reading back)."""
    return _view(event, transfers, {p.id: p.name for p in people})


def _view(event: EventRow, transfers: Sequence[TransferRow], names: dict[int, str]) -> HandView:
    def name(pid: int | None) -> str | None:
        return None if pid is None else names.get(pid, "?")

    payments = tuple(
        Payment(name(t.payer_id), name(t.payee_id), t.amount, t.reason, t.detail) for t in transfers
    )
    return HandView(
        event_id=event.id,
        hand_no=event.hand_no,
        kind=event.kind,
        game=event.game,
        text=event.text,
        at=event.created_at,
        undone=event.undone_by is not None,
        recorded_by=event.recorded_by_name,
        payments=payments,
        data=event.data,
    )


def undo(tx: Tx, req: Undo) -> Undone | Info:
    target = _target(tx, req)
    if target is None:
        return Info(N_("Nothing to undo."))
    record = book.add_event(
        tx.db,
        tx.chat,
        season_id=tx.season.id,
        table_id=target.table_id,
        kind=EventKind.UNDO,
        game=target.game,
        text=tx.ctx.text,
        data={"target": target.id, "hand_no": target.hand_no},
        recorded_by=tx.ctx.actor.recorder_id,
        recorded_by_name=tx.ctx.actor.name,
    )
    tx.event_id = record.id
    book.mark_undone(tx.db, target.id, record.id)
    target.undone_by = record.id
    transfers = book.transfers_of(tx.db, [target.id]).get(target.id, [])
    if transfers:
        book.revert_transfers(tx.db, transfers, season_id=target.season_id, unit=transfers[0].unit)
    if target.kind == EventKind.HAND:
        stats.count_hand(tx.db, target.season_id, target.game, target.data, transfers, undo=True)
    dealer = None
    table = tables.table_by_id(tx.db, target.table_id) if target.table_id else None
    if table is not None and target.kind == EventKind.HAND and target.game == Game.MAHJONG:
        table.dealer = int(target.data["dealer_before"])
        tables.set_dealer(tx.db, table.id, table.dealer)
        dealer_id = table.seats[table.dealer]
        dealer = players.players_by_id(tx.db, [dealer_id])[dealer_id].name
    view = _view(target, transfers, player_names(tx.db, _people(transfers)))
    return Undone(view=view, dealer=dealer)


def _people(transfers: Sequence[TransferRow]) -> list[int]:
    return [pid for t in transfers for pid in (t.payer_id, t.payee_id) if pid is not None]


def _target(tx: Tx, req: Undo) -> EventRow | None:
    if req.event_id is None:
        table = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
        if table is None:
            return None
        return book.last_live_event(tx.db, table.id, tx.season.id)
    event = book.event_by_id(tx.db, req.event_id)
    if event is None or event.chat_id != tx.chat.id or event.kind not in book.RECORDS:
        raise ServiceError(N_("That record does not belong to this chat."))
    if event.undone_by is not None:
        raise ServiceError(N_("That record was already undone."))
    if event.season_id != tx.season.id:
        raise ServiceError(N_("That record belongs to an archived season."))
    here = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if (here is None or event.table_id != here.id) and not tx.ctx.is_admin:
        raise Forbidden(N_("That record belongs to another table; only group admins can undo it."))
    last = book.last_live_event(tx.db, event.table_id or 0, event.season_id)
    if last is None or last.id != event.id:
        raise ServiceError(
            N_("Only the table's last record can be undone (the last is #{last})."),
            last=(last.hand_no or last.seq) if last else "-",
        )
    return event


def record(tx: Tx, table: TableRow, kind: EventKind, data: dict[str, Any]) -> EventRow:
    """Append a hand or kong of `table` to the ledger (numbered in the chat)."""
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
    )
    tx.event_id = event.id
    return event
