"""Balance marks: every `MARK_EVERY`-th event of a chat, a copy of its season's balances just
before it, so /chart reads a few hundred marks, not the season (docs/storage.md)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from fractions import Fraction
from typing import Any

from sqlalchemy import bindparam, delete, func, insert, select
from sqlalchemy.engine import Connection

from scoring.games import EventKind, Game
from storage.models import balance, balance_mark, event, stat_hands, transfer

MARK_EVERY = 20  # chat events: one INSERT … SELECT per 20 events, nothing in between
RECORDS = (EventKind.HAND.value, EventKind.PAY.value)  # what moves balances
Nets = dict[int, Fraction | int]


def _played(unit_of: Any) -> Any:
    """A unit's live records now: its live hands (kept for /stats) and its live transfers."""
    hands = (
        select(stat_hands.c.live)
        .where(stat_hands.c.season_id == unit_of.c.season_id, stat_hands.c.unit == unit_of.c.unit)
        .scalar_subquery()
    )
    transfers = (
        select(func.count())
        .select_from(event.join(transfer, transfer.c.event_id == event.c.id))
        .where(
            event.c.season_id == unit_of.c.season_id,
            event.c.kind == EventKind.PAY.value,
            event.c.undone_by.is_(None),
            transfer.c.unit == unit_of.c.unit,
        )
        .scalar_subquery()
    )
    return func.coalesce(hands, 0) + transfers


_MARK = insert(balance_mark).from_select(
    ["season_id", "seq", "unit", "player_id", "amount", "played"],
    select(
        balance.c.season_id,
        bindparam("seq"),
        balance.c.unit,
        balance.c.player_id,
        balance.c.amount,
        _played(balance),
    ).where(balance.c.season_id == bindparam("season_id"), balance.c.amount != 0),
)
_units = (
    select(balance.c.season_id, balance.c.unit)
    .distinct()
    .where(balance.c.season_id == bindparam("season_id"))
    .subquery()
)
_LIVE_COUNTS = select(_units.c.unit, _played(_units))
_PLACES = (
    select(balance_mark.c.seq, balance_mark.c.unit, func.max(balance_mark.c.played))
    .where(balance_mark.c.season_id == bindparam("season_id"))
    .group_by(balance_mark.c.seq, balance_mark.c.unit)
    .order_by(balance_mark.c.seq, balance_mark.c.unit)
)
_MARKED = select(
    balance_mark.c.seq, balance_mark.c.unit, balance_mark.c.player_id, balance_mark.c.amount
).where(
    balance_mark.c.season_id == bindparam("season_id"),
    balance_mark.c.seq.in_(bindparam("seqs", expanding=True)),
)
_undo, _record = event.alias("u"), event.alias("r")
_UNDONE = (
    select(
        _record.c.seq,
        _undo.c.seq,
        _record.c.game,
        transfer.c.unit,
        transfer.c.payer_id,
        transfer.c.payee_id,
        transfer.c.amount,
    )
    .select_from(
        _undo.join(
            _record,
            (_record.c.id == _undo.c.data["target"].as_integer())
            & (_record.c.undone_by == _undo.c.id),
        ).outerjoin(transfer, transfer.c.event_id == _record.c.id)
    )
    .where(
        _undo.c.season_id == bindparam("season_id"),
        _undo.c.kind == EventKind.UNDO.value,
        _record.c.kind.in_(RECORDS),
    )
    .order_by(_record.c.seq, transfer.c.id)
)


def mark(db: Connection, season_id: int, seq: int) -> None:
    """The write path's one call, as event `seq` of the season is appended (before its own
    changes): every `MARK_EVERY`-th event, the season's non-zero balances are copied."""
    if seq % MARK_EVERY == 0:
        db.execute(_MARK, {"seq": seq, "season_id": season_id})


def live_counts(db: Connection, season_id: int) -> dict[str, int]:
    """Each unit's live records (hands and transfers) now, as a mark counts them."""
    rows = db.execute(_LIVE_COUNTS, {"season_id": season_id})
    return {unit: int(n) for unit, n in rows if n}


def mark_places(db: Connection, season_id: int) -> list[tuple[int, str, int]]:
    """Where the season's marks stand: (seq, unit, live records of the unit), oldest first."""
    return [tuple(row) for row in db.execute(_PLACES, {"season_id": season_id})]


def marked_balances(
    db: Connection, season_id: int, seqs: Sequence[int]
) -> Iterator[tuple[int, str, int, Fraction | int]]:
    """(seq, unit, player id, balance) of the season's marks at these events."""
    for start in range(0, len(seqs), 500):
        params = {"season_id": season_id, "seqs": list(seqs[start : start + 500])}
        for row in db.execute(_MARKED, params):
            yield tuple(row)


Undone = tuple[int, int, str, Nets]  # seq, undo's seq, unit, nets


def undone_after(db: Connection, season_id: int) -> list[Undone]:
    """The season's undone hands and transfers: (their seq, their undo's seq, unit, each
    player's net), found from the undos (few) by their target."""
    nets: dict[tuple[int, int, str], Nets] = {}
    rows = db.execute(_UNDONE, {"season_id": season_id})
    for seq, undo_seq, game, unit, payer, payee, amount in rows:
        net = nets.setdefault((seq, undo_seq, unit or unit_of(game)), defaultdict(int))
        if amount is not None:  # a hand without payments (a drawn hand) counts all the same
            _pay(net, payer, payee, amount)
    return [(seq, undo_seq, unit, dict(net)) for (seq, undo_seq, unit), net in nets.items()]


def _pay(net: Nets, payer: int | None, payee: int | None, amount: Fraction | int) -> None:
    if payer is not None:
        net[payer] = net.get(payer, 0) - amount
    if payee is not None:
        net[payee] = net.get(payee, 0) + amount


def forget(db: Connection, season_ids: Sequence[int]) -> None:
    """The seasons' marks go (a chat move renumbered their events)."""
    if season_ids:
        db.execute(delete(balance_mark).where(balance_mark.c.season_id.in_(list(season_ids))))


def unit_of(game: str) -> str:
    """The unit of a record without payments: its game's (a free round always has some)."""
    return Game(game).unit.value
