"""The ledger's views and its one correction: /undo (a recorded reversal, never a deletion)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlmodel import Session

from scoring.games import Game
from service.errors import N_, Forbidden, ServiceError
from service.replies import HandView, Info, Payment, Undone
from service.requests import Undo
from service.unit import Tx
from storage import hot_path as hot
from storage import repository as repo
from storage.models import Event, GameTable, Transfer
from storage.rows import EventRow, PlayerRow, TableRow, TransferRow
from storage.sql import Sql

RECORDS = ("hand", "kong")


def hand_views(session: Session, events: Sequence[Event]) -> list[HandView]:
    """Events with their payments and the payers' names, in the given order."""
    ids = [e.id for e in events if e.id is not None]
    transfers = repo.transfers_of(session, ids)
    names = player_names(
        session, [pid for t in transfers for pid in (t.payer_id, t.payee_id) if pid is not None]
    )
    by_event: dict[int, list[Transfer]] = {}
    for t in transfers:
        by_event.setdefault(t.event_id, []).append(t)
    return [_view(e, by_event.get(e.id or 0, []), names) for e in events]


def player_names(session: Session, ids: Sequence[int]) -> dict[int, str]:
    """Names by player id, read in the session's transaction."""
    return {pid: p.name for pid, p in hot.players_by_id(Sql(session.connection()), ids).items()}


def fresh_view(
    event: EventRow, transfers: Sequence[TransferRow], people: Sequence[PlayerRow]
) -> HandView:
    """The view of an event just written, from what the use case holds (no reading back)."""
    return _view(event, transfers, {p.id: p.name for p in people})


def _view(
    event: Event | EventRow, transfers: Sequence[Transfer | TransferRow], names: dict[int, str]
) -> HandView:
    def name(pid: int | None) -> str | None:
        return None if pid is None else names.get(pid, "?")

    payments = tuple(
        Payment(name(t.payer_id), name(t.payee_id), t.amount, t.reason, t.detail) for t in transfers
    )
    return HandView(
        event_id=event.id or 0,
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
    record = hot.add_event(
        tx.db,
        tx.chat,
        season_id=tx.season.id,
        table_id=target.table_id,
        kind="undo",
        game=target.game,
        text=tx.ctx.text,
        data={"target": target.id, "hand_no": target.hand_no},
        recorded_by=tx.ctx.actor.user_id,
        recorded_by_name=tx.ctx.actor.name,
    )
    tx.event_id = record.id
    target.undone_by = record.id
    tx.session.add(target)
    _revert_balances(tx, target)
    dealer = None
    table = tx.session.get(GameTable, target.table_id) if target.table_id else None
    if table is not None and target.kind == "hand" and target.game == Game.MAHJONG:
        table.dealer = int(target.data["dealer_before"])
        tx.session.add(table)
        dealer_id = table.seats[table.dealer]
        dealer = hot.players_by_id(tx.db, [dealer_id])[dealer_id].name
    return Undone(view=hand_views(tx.session, [target])[0], dealer=dealer)


def _revert_balances(tx: Tx, target: Event) -> None:
    """The undone record's transfers leave the balances."""
    transfers = repo.transfers_of(tx.session, [target.id] if target.id is not None else [])
    if transfers:
        hot.revert_transfers(tx.db, transfers, season_id=target.season_id, unit=transfers[0].unit)


def _target(tx: Tx, req: Undo) -> Event | None:
    if req.event_id is None:
        table = repo.open_table(tx.session, tx.chat.id, tx.ctx.thread_id)
        if table is None or table.id is None:
            return None
        return repo.last_live_event(
            tx.session, table_id=table.id, season_id=tx.season.id or 0, kinds=RECORDS
        )
    event = repo.event_by_id(tx.session, req.event_id)
    if event is None or event.chat_id != tx.chat.id or event.kind not in RECORDS:
        raise ServiceError(N_("That record does not belong to this chat."))
    if event.undone_by is not None:
        raise ServiceError(N_("That record was already undone."))
    if event.season_id != tx.season.id:
        raise ServiceError(N_("That record belongs to an archived season."))
    here = repo.open_table(tx.session, tx.chat.id, tx.ctx.thread_id)
    if (here is None or event.table_id != here.id) and not tx.ctx.is_admin:
        raise Forbidden(N_("That record belongs to another table; only group admins can undo it."))
    last = repo.last_live_event(
        tx.session, table_id=event.table_id or 0, season_id=event.season_id, kinds=RECORDS
    )
    if last is None or last.id != event.id:
        raise ServiceError(
            N_("Only the table's last record can be undone (the last is #{last})."),
            last=(last.hand_no or last.seq) if last else "-",
        )
    return event


def record(tx: Tx, table: TableRow, kind: str, data: dict[str, Any]) -> EventRow:
    """Append a hand or kong of `table` to the ledger (numbered in the chat)."""
    event = hot.add_event(
        tx.db,
        tx.chat,
        season_id=tx.season.id,
        table_id=table.id,
        kind=kind,
        game=table.game,
        text=tx.ctx.text,
        data=data,
        recorded_by=tx.ctx.actor.user_id,
        recorded_by_name=tx.ctx.actor.name,
    )
    tx.event_id = event.id
    return event
