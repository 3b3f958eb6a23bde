"""/fee: a cost beside the score (台费, 房费, 茶水), in money. A record of its own (`EventKind.FEE`)
at the open table, numbered like a hand, undone like one; its payments are in the fee's money
unit (`scoring.games.fee_unit`), never in a game's points.

Shared equally (`scoring.fees.split`) by the open table's players, the sitting's (`all`), or
the players named. Paid by one (`paid 老王`): each other sharer owes them their share, and
settling up squares it with the games. Not paid by anyone yet: each sharer owes the house their
share, which their balance shows and settling up leaves out (their par, `house_par`)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from scoring.fees import house_par, owed, split
from scoring.games import EventKind, fee_unit
from service import players as who
from service.errors import N_, ServiceError
from service.ledger import fresh_view, record
from service.replies import Recorded
from service.requests import Fee, PlayerRef
from service.sittings import gap_of, night_events
from service.tables import require_table
from service.unit import Tx
from storage.gateway import ledger as book
from storage.gateway import players as roster
from storage.models import PlayerRow, TransferRow

USAGE = "/fee 120 台费 · /fee 120 台费 paid 老王 · /fee 30 茶水 小李 阿张 · /fee 120 台费 all"
MAX_FEE = Fraction(10**7)
NIGHT_LIMIT = 600  # records read back for the sitting's players


def fee(tx: Tx, req: Fee) -> Recorded:
    """Record a fee: its shares in whole cents, the payments they make, the balances moved."""
    table = require_table(tx)
    seated = who.seated(tx, table)
    pool = _pool(tx, seated, wide=req.everyone or bool(req.players) or req.payer is not None)
    if req.amount <= 0 or req.amount > MAX_FEE or (req.amount * 100).denominator != 1:
        raise ServiceError(
            N_("A fee is a positive amount of money with at most two decimals, like 120 or 35.5."),
            usage=USAGE,
        )
    if req.players:
        sharers = _distinct([_find(tx, table, pool, ref) for ref in req.players])
    else:
        sharers = pool if req.everyone else seated
    payer = _find(tx, table, pool, req.payer) if req.payer is not None else None
    if payer is not None and [p.id for p in sharers] == [payer.id]:
        raise ServiceError(
            N_("{name} paid it and shares it alone: nobody owes anything."),
            usage=USAGE,
            name=payer.name,
        )
    cut = split(req.amount, [p.id for p in sharers], payer.id if payer else None)
    unit = fee_unit(req.what)
    data: dict[str, Any] = {
        "seats": [p.id for p in sharers],
        "names": [p.name for p in sharers],
        "unit": unit,
        "what": req.what,
        "amount": str(req.amount),
        "payer": payer.id if payer else None,
        "shares": {str(pid): str(share) for pid, share in cut.shares.items()},
        "extra": list(cut.extra),
    }
    event = record(tx, table, EventKind.FEE, data)
    payer_id = payer.id if payer else None
    transfers = [
        TransferRow(
            event_id=event.id,
            season_id=tx.season.id,
            unit=unit,
            payer_id=pid,
            payee_id=payee,
            amount=amount,
            reason="fee",
        )
        for pid, payee, amount in owed(cut.shares, payer_id)
    ]
    people = [*sharers, *([payer] if payer and payer not in sharers else [])]
    book.add_transfers(
        tx.db,
        transfers,
        season_id=tx.season.id,
        unit=unit,
        seated=[p.id for p in people],
        par=house_par(cut.shares, payer_id),
    )
    return Recorded(view=fresh_view(event, transfers, people))


def _pool(tx: Tx, seated: Sequence[PlayerRow], *, wide: bool) -> list[PlayerRow]:
    """The players a fee may name: the seated, then (`wide`) the others who played tonight
    (the chat's records since play last paused), in the order they first played."""
    if not wide:
        return list(seated)
    ids = [p.id for p in seated]
    night = night_events(tx.db, tx.season.id, since=tx.chat.sitting_from, gap=gap_of(tx.chat))
    for e in reversed(night):
        if e.undone_by is None:
            ids += [pid for pid in e.data.get("seats") or () if isinstance(pid, int)]
    ids = list(dict.fromkeys(ids))
    found = roster.players_by_id(tx.db, ids)
    return [found[pid] for pid in ids if pid in found]


def _find(tx: Tx, table: Any, pool: Sequence[PlayerRow], ref: PlayerRef) -> PlayerRow:
    return pool[who.seat_of(tx, table, ref, pool)]


def _distinct(found: Sequence[PlayerRow]) -> list[PlayerRow]:
    seen: dict[int, PlayerRow] = {}
    for p in found:
        if p.id in seen:
            raise ServiceError(N_("{name} appears twice."), usage=USAGE, name=p.name)
        seen[p.id] = p
    return list(seen.values())
