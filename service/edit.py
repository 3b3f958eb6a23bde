"""/edit: a record corrected in place, and the undo of a correction.

The corrected command is run by the use case of its kind, as a new record would be (every
check of a new one), on the table as it stood at the record (its dealer, its kongs); its
`ledger.record` rewrites the record instead of adding one (`Tx.editing`): it keeps its number,
place and recorder. The correction is an event of its own (`EventKind.EDIT`) that keeps the
version before whole (its text, data and tiles in its data, its payments moved to it), so every
version stays readable and `/undo` of the correction puts that version back. Balances move by
the difference: they stay the sum of the live records' payments.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any

from sqlalchemy.engine import Connection

from scoring.games import EventKind, Game
from service import fees, free, k510, ledger, mahjong, repeats
from service.errors import N_, Forbidden, ServiceError
from service.hand_views import HandView
from service.rating import SITTING_GAP
from service.replies import Edited, Info, Recorded, Reply, UndoAsk, Undone, UndoPick, Version
from service.requests import Edit, Fee, Gang, Hu, Liuju, Pay, Report, Request, Score, Undo
from service.squaring import record_par
from service.unit import Tx
from storage.gateway import ledger as book
from storage.gateway import players, tables
from storage.gateway.chats import Tail
from storage.models import EventRow, TableRow, TransferRow

UseCase = Callable[[Tx, Any], Reply]
WINDOW = timedelta(minutes=2)  # another member's correction this recent: told, not overwritten


@dataclass(frozen=True)
class Editable:
    """A kind of record that may be corrected: the command it is written with (for the
    refusals) and the requests that correct it, each with its use case."""

    command: str
    runs: Mapping[type[Any], UseCase]


#: Every kind of record `/edit` corrects (`kind_of`): a new kind is one entry here.
EDITABLE: dict[str, Editable] = {
    "hand:mahjong": Editable("/hu", {Hu: mahjong.hu, Liuju: mahjong.liuju}),
    "hand:510k": Editable("/r", {Report: k510.report}),
    "hand:510k3": Editable("/r", {Report: k510.report}),
    "hand:free": Editable("/s", {Score: free.score}),
    "pay": Editable("/pay", {Pay: free.pay}),
    "kong": Editable("/gang", {Gang: mahjong.gang}),
    "fee": Editable("/fee", {Fee: fees.fee}),
}


def requests() -> frozenset[type[Any]]:
    """Every request a correction may be written as (the bot reads the words with their
    commands)."""
    return frozenset(kind for editable in EDITABLE.values() for kind in editable.runs)


def kind_of(event: EventRow) -> str:
    """A record's kind as `EDITABLE` keys it: a hand by its game, anything else by its kind."""
    return f"{event.kind}:{event.game}" if event.kind == EventKind.HAND else str(event.kind)


def edit(tx: Tx, req: Edit) -> Edited | Info:
    """`/edit 7 …`: the record named corrected to what the command says."""
    target, seen = _target(tx, req)
    editable = EDITABLE.get(kind_of(target))
    if editable is None:
        raise ServiceError(N_("That record cannot be corrected; undo it with /undo instead."))
    chosen = [
        (r, t) for r, t in zip(req.options, req.texts, strict=True) if type(r) in editable.runs
    ]
    if not chosen:
        raise ServiceError(
            N_("#{n} was recorded with {command}: write it corrected as that command, e.g.:"),
            usage=f"/edit {target.hand_no or ''} {target.text or editable.command}".replace(
                "  ", " "
            ),
            n=target.hand_no or "",
            command=editable.command,
        )
    request, text = chosen[0]
    return correct(tx, target, request, text, seen)


def correct(
    tx: Tx, target: EventRow, request: Request, text: str, seen: int | None = None
) -> Edited | Info:
    """Record `target` (checked: this chat's, live, of the season in play) corrected to
    `request`, typed as `text`; `seen`: the version the sender saw (None: the current, unless
    another member changed it within `WINDOW`)."""
    editable = EDITABLE[kind_of(target)]
    _unchanged_since(tx, target, seen)
    table = tables.table_by_id(tx.db, target.table_id or 0)
    if table is None:
        raise ServiceError(N_("That record belongs to no table; undo it with /undo instead."))
    last = book.last_live_event(tx.db, table.id, target.season_id, (EventKind.HAND,))
    newest = last is not None and last.id == target.id
    _may_rescore(tx, target, table, newest)
    if _same_content(tx, table, target, request):
        return Info(N_("#{n} already says that: nothing changed."), {"n": target.hand_no or ""})
    before = ledger.hand_views(tx.db, [target])[0]
    mark = ledger.mark(tx, target, EventKind.EDIT)
    tx.event_id = mark.id  # what the update recorded (a redelivery: "already done")
    kept = _keep_version(tx, target, table, mark.id)
    book.rewrite_data(tx.db, mark.id, {**mark.data, "before": kept.id})
    dealer_now = table.dealer
    if target.kind == EventKind.HAND and "dealer_before" in target.data:
        table.dealer = int(target.data["dealer_before"])  # scored as it was dealt
    kongs = book.kongs_of_hand(tx.db, target) if target.kind == EventKind.HAND else []
    book.mark_undone(tx.db, target.id, mark.id)  # out of the live records while scored
    tail = Tail(table.id, None, tuple(k.data for k in kongs))
    ctx = tx.ctx
    tx.table, tx.table_fresh, tx.editing = table, True, target
    tx.tail = tail if target.kind == EventKind.HAND else None
    tx.ctx = replace(ctx, text=text)
    try:
        reply = editable.runs[type(request)](tx, request)
    finally:
        tx.editing, tx.ctx = None, ctx
    book.mark_undone(tx.db, target.id, None)
    tx.tail = None
    dealer = _dealer_after(tx, table, target, newest, dealer_now)
    after = reply.view if isinstance(reply, Recorded) else _view(tx, target.id)
    added, dropped = repeats.differences(target.text, text)
    return Edited(
        view=after,
        before=before,
        by=tx.ctx.actor.name,
        edit_id=mark.id,
        older=not newest and target.kind == EventKind.HAND and target.game == Game.MAHJONG,
        dealer=dealer,
        added=added,
        dropped=dropped,
    )


def undo(tx: Tx, req: Undo) -> Undone | UndoAsk | UndoPick | Info | Edited:
    """/undo: a correction named (its Undo button, a reply to its message) or, typed bare,
    the open table's last change when that is a correction, is undone here; anything else is
    `ledger.undo`'s."""
    mark = None
    if req.event_id is not None:
        found = book.event_by_id(tx.db, req.event_id)
        if found is not None and found.kind == EventKind.EDIT and found.chat_id == tx.chat.id:
            mark = found
    elif req == Undo():
        table = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
        if table is not None:
            kinds = (*book.RECORDS, EventKind.UNDO, EventKind.EDIT)
            latest = book.last_live_event(tx.db, table.id, tx.season.id, kinds)
            mark = latest if latest is not None and latest.kind == EventKind.EDIT else None
    if mark is None:
        if req.from_message and req.event_id is not None:
            _not_corrected_since(tx, req.event_id)
        return ledger.undo(tx, req)
    return undo_edit(tx, mark)


#: The refusal of a record's Undo (its message's) once the record was corrected: its button
#: then says so, disabled.
CORRECTED_SINCE = N_(
    "#{n} was corrected since: its correction's message has the Undo now (or /undo {n} undoes"
    " the whole record)."
)


def _not_corrected_since(tx: Tx, event_id: int) -> None:
    found = book.event_by_id(tx.db, event_id)
    if found is None or found.chat_id != tx.chat.id or found.undone_by is not None:
        return  # not ours, or undone: `ledger.undo` says so
    if found.data.get("edits"):
        raise ServiceError(CORRECTED_SINCE, n=found.hand_no or "")


def undo_edit(tx: Tx, mark: EventRow) -> Edited:
    """The correction `mark` undone: its record says again what it said before it, its
    payments those of then (kept with the correction)."""
    if mark.undone_by is not None:
        raise ServiceError(N_("That correction was already undone."))
    target = _checked(tx, book.event_by_id(tx.db, int(mark.data["target"])))
    if (target.data.get("edits") or [None])[-1] != mark.id:
        raise ServiceError(
            N_("#{n} was corrected again after this: undo the later correction first."),
            n=target.hand_no or "",
        )
    table = tables.table_by_id(tx.db, target.table_id or 0)
    assert table is not None
    record = ledger.mark(tx, target, EventKind.UNDO, names=mark.id)
    tx.event_id, tx.tail = record.id, None
    book.mark_undone(tx.db, mark.id, record.id)
    now = ledger.hand_views(tx.db, [target])[0]
    _keep_version(tx, target, table, record.id)  # the version undone, kept as the others
    version = book.event_by_id(tx.db, int(mark.data["before"]))
    assert version is not None
    before = {"text": version.text, "data": version.data, "tiles": version.tiles}
    book.rewrite(tx.db, target.id, text=version.text, data=version.data, tiles=version.tiles)
    restored = target.model_copy(update=before)
    old = book.transfers_of(tx.db, [version.id]).get(version.id, [])
    book.move_transfers(tx.db, [t.id for t in old if t.id is not None], target.id)
    if old:
        par = record_par(restored.kind, restored.data, old, _seats(restored, table))
        book.apply_transfers(tx.db, old, season_id=target.season_id, unit=old[0].unit, par=par)
    last = book.last_live_event(tx.db, table.id, target.season_id, (EventKind.HAND,))
    dealer = None
    seated = restored.data.get("seats", table.seats) == table.seats
    if last is not None and last.id == target.id and "dealer_after" in restored.data and seated:
        dealer = _set_dealer(tx, table, int(restored.data["dealer_after"]))
    added, dropped = repeats.differences(target.text, restored.text)
    return Edited(
        view=_view(tx, target.id),
        before=now,
        by=tx.ctx.actor.name,
        edit_id=record.id,
        dealer=dealer,
        added=added,
        dropped=dropped,
        undone=True,
    )


def versions(db: Connection, target: EventRow) -> list[tuple[HandView, EventRow | None]]:
    """Every version of a record, oldest first: each as it read, with the payments it had, and
    the correction that replaced it (None: the current one)."""
    out: list[tuple[HandView, EventRow | None]] = []
    for mark_id in target.data.get("edits", []):
        mark = book.event_by_id(db, int(mark_id))
        if mark is None:
            continue
        version = book.event_by_id(db, int(mark.data["before"]))
        if version is None:
            continue
        update = {"text": version.text, "data": version.data, "tiles": version.tiles}
        then = target.model_copy(update=update)
        payments = book.transfers_of(db, [version.id]).get(version.id, [])
        out.append((ledger.view_with(db, then, payments), mark))
    out.append((ledger.hand_views(db, [target])[0], None))
    return out


def _target(tx: Tx, req: Edit) -> tuple[EventRow, int | None]:
    """The record an edit names, checked, and the version its sender saw: a reply to a
    correction's message names that correction."""
    seen = req.seen
    if req.event_id is not None:
        found = book.event_by_id(tx.db, req.event_id)
        if found is not None and found.kind == EventKind.EDIT and found.chat_id == tx.chat.id:
            seen = found.id if seen is None else seen
            found = book.event_by_id(tx.db, int(found.data["target"]))
        return _checked(tx, found), seen
    if req.hand_no is None:
        raise ServiceError(
            N_("Which record? Give its number, or send the command as a reply to its message:"),
            usage="/edit 7 /hu 阿张 pao 小李",
        )
    here = tx.ctx.thread_id
    found_ = [
        e
        for e in book.hands_numbered(tx.db, tx.season.id, req.hand_no)
        if (t := tables.table_by_id(tx.db, e.table_id or 0)) is not None and t.thread_id == here
    ]
    live = [e for e in found_ if e.undone_by is None]
    if not found_:
        raise ServiceError(
            N_("This season has no hand #{n}; /history lists the hands with their numbers."),
            n=req.hand_no,
        )
    if len(live) > 1:
        table = tables.open_table(tx.db, tx.chat.id, here)
        live = [e for e in live if table is not None and e.table_id == table.id] or live
        if len(live) > 1:
            raise ServiceError(
                N_("Several tables have a #{n}: send the correction as a reply to its message."),
                n=req.hand_no,
            )
    return _checked(tx, live[0] if live else found_[-1]), seen


def _checked(tx: Tx, event: EventRow | None) -> EventRow:
    """A record named: may this member correct it? Anyone at its table for the sitting being
    played; an admin for another table, another topic's, or an earlier sitting; nobody for an
    archived season."""
    if event is None or event.chat_id != tx.chat.id or kind_of(event) not in EDITABLE:
        raise ServiceError(N_("That record does not belong to this chat."))
    if event.undone_by is not None:
        raise ServiceError(N_("That record was undone: type it again instead."))
    if event.season_id != tx.season.id:
        raise ServiceError(N_("That record belongs to an archived season: it stays as it was."))
    if tx.ctx.is_admin:
        return event
    here = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if here is None or event.table_id != here.id:
        raise Forbidden(
            N_("That record belongs to another table; only group admins can correct it.")
        )
    if not _this_sitting(tx, event):
        raise Forbidden(
            N_("That record is of an earlier sitting; only group admins can correct it.")
        )
    return event


def _this_sitting(tx: Tx, event: EventRow) -> bool:
    """Whether no pause as long as the one that ends a sitting (`SITTING_GAP`) came between
    the record and now, at its table."""
    moments = [
        repeats.at_utc(e.created_at)
        for e in book.hands(tx.db, tx.season.id)
        if e.table_id == event.table_id and e.seq >= event.seq
    ]
    moments = sorted([*moments, book.now()])
    return all(b - a <= SITTING_GAP for a, b in itertools.pairwise(moments))


def _unchanged_since(tx: Tx, target: EventRow, seen: int | None) -> None:
    """Refuse a correction of a version other than the sender saw (a double tap, two members at
    once): the second is told, and shown what it says now."""
    current = (target.data.get("edits") or [target.id])[-1]
    if seen is None and current != target.id:
        last = book.event_by_id(tx.db, int(current))
        recent = last is not None and book.now() - repeats.at_utc(last.created_at) < WINDOW
        if recent and last is not None and last.recorded_by != tx.ctx.actor.recorder_id:
            seen = target.id
    if seen is not None and seen != current:
        last = book.event_by_id(tx.db, int(current))
        raise ServiceError(
            N_(
                "#{n} was changed meanwhile by {who}; it now says: {text} — if it still needs a"
                " correction, send it as a reply to that message."
            ),
            n=target.hand_no or "",
            who=last.recorded_by_name if last is not None else "",
            text=target.text,
        )


def _may_rescore(tx: Tx, target: EventRow, table: TableRow, newest: bool) -> None:
    """What a correction cannot do: rescore a hand at seats that changed since, a marathon's
    hand before its last (the running totals go on from it), a kong paid with its hand."""
    seats = target.data.get("seats")
    if seats is not None and seats != table.seats:
        raise ServiceError(
            N_(
                "The seats changed since #{n} was recorded, so it cannot be scored again: undo it"
                " with /undo {n} and type it again."
            ),
            n=target.hand_no or "",
        )
    if table.marathon and target.kind == EventKind.HAND and not newest:
        raise ServiceError(
            N_(
                "In a marathon only the table's last hand can be corrected: the running totals go"
                " on from it."
            )
        )
    if target.kind == EventKind.KONG and not ledger.pending_kong(tx, target):
        raise ServiceError(N_("That kong was paid with its hand: correct the hand instead."))


def _same_content(tx: Tx, table: TableRow, target: EventRow, request: Request) -> bool:
    """Whether the correction says what the record says already (a double tap)."""
    if not isinstance(request, Hu | Liuju | Report | Pay) or "same" not in target.data:
        return False
    people = [players.players_by_id(tx.db, table.seats)[pid] for pid in table.seats]
    try:
        return bool(repeats.content(tx, table, people, request) == target.data["same"])
    except ServiceError:
        return False  # the use case says what is wrong


def _keep_version(tx: Tx, target: EventRow, table: TableRow, replaced_by: int) -> EventRow:
    """The record as it reads now kept as a version of its own (`EventKind.VERSION`: its
    text, data, tiles and payments), marked replaced by `replaced_by` (a correction, or the
    undo of one) as an undo marks what it undid: its payments leave the balances."""
    version = book.add_event(
        tx.db,
        tx.chat,
        season_id=target.season_id,
        table_id=target.table_id,
        kind=EventKind.VERSION,
        game=target.game,
        text=target.text,
        data={**target.data, "version_of": target.id, "hand_no": target.hand_no},
        recorded_by=target.recorded_by,
        recorded_by_name=target.recorded_by_name,
        tiles=target.tiles,
        at=tx.now,
    )
    book.mark_undone(tx.db, version.id, replaced_by)
    payments = book.transfers_of(tx.db, [target.id]).get(target.id, [])
    _hand_over(tx, target, table, payments, version.id)
    return version


def _hand_over(
    tx: Tx, target: EventRow, table: TableRow, transfers: Sequence[TransferRow], to: int
) -> None:
    """A version's payments leave the balances (and their pars) and its record, kept with
    event `to` (the version that keeps them)."""
    if not transfers:
        return
    par = record_par(target.kind, target.data, transfers, _seats(target, table))
    unit = transfers[0].unit
    book.revert_transfers(tx.db, transfers, season_id=target.season_id, unit=unit, par=par)
    book.move_transfers(tx.db, [t.id for t in transfers if t.id is not None], to)


def _seats(event: EventRow, table: TableRow) -> list[int]:
    return list(event.data.get("seats") or table.seats)


def _dealer_after(
    tx: Tx, table: TableRow, target: EventRow, newest: bool, dealer_now: int
) -> str | None:
    """The table's last hand corrected moves the dealer as the corrected hand says; an older
    one leaves it where it is."""
    if target.kind != EventKind.HAND or target.game != Game.MAHJONG:
        return None
    if newest:
        return _set_dealer(tx, table, table.dealer)
    _set_dealer(tx, table, dealer_now)
    return None


def _set_dealer(tx: Tx, table: TableRow, seat: int) -> str:
    table.dealer = seat
    tables.set_dealer(tx.db, table.id, seat)
    pid = table.seats[seat]
    return players.players_by_id(tx.db, [pid])[pid].name


def _view(tx: Tx, event_id: int) -> HandView:
    event = book.event_by_id(tx.db, event_id)
    assert event is not None
    return ledger.hand_views(tx.db, [event])[0]


def versions_of(
    db: Connection, season_id: int, hand_no: int, thread_id: int
) -> tuple[Version, ...]:
    """`/history <n>`: the versions of hand #n of the season where it was corrected (of the
    tables of this chat or forum topic; nothing where it never was)."""
    for event in book.hands_numbered(db, season_id, hand_no):
        table = tables.table_by_id(db, event.table_id or 0)
        if table is None or table.thread_id != thread_id or not event.data.get("edits"):
            continue
        found = versions(db, event)
        by, at = event.recorded_by_name, event.created_at
        out = []
        for view, mark in found:
            out.append(Version(view=view, by=by, at=at))
            if mark is not None:
                by, at = mark.recorded_by_name, mark.created_at
        return tuple(out)
    return ()
