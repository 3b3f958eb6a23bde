"""Free scoring: /s records a round of a free table (any game), /pay a transfer at any table.

A free table's points are their own unit, one per game name (`scoring.games.free_unit`); a
transfer moves the points of its table's unit (mahjong points at a mahjong table…).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import Any, TypeVar

from scoring import ERROR_CODES
from scoring.errors import ScoringError
from scoring.free import round_scores, transfer
from scoring.games import EventKind, Game, free_unit
from service import players as who
from service import repeats
from service.errors import N_, ServiceError
from service.ledger import fresh_view, pay_out, record
from service.records import points
from service.replies import Recorded
from service.requests import Pay, PlayerRef, RefKind, Score, ScoreEntry
from service.tables import require_table
from service.unit import Tx
from storage.gateway.ledger import Held
from storage.models import PlayerRow, TableRow, TransferRow

USAGE_S = "/s A+30 B-10 C"  # no words to translate
USAGE_PAY = "/pay A B 5"
T = TypeVar("T")


def table_unit(table: TableRow) -> str:
    """The unit a table's points count in."""
    game = Game(table.game)
    return free_unit(table.name) if game is Game.FREE else game.unit.value


def score(tx: Tx, req: Score) -> Recorded:
    table = require_table(tx, Game.FREE)
    seated = who.seated_with_balances(tx, table, table_unit(table))
    people, balances = seated.people, seated.balances
    seats: list[tuple[int, Fraction | None]] = []
    for entry in req.entries:
        seat = who.seat_of(tx, table, entry.player, people)
        if seat in (s for s, _ in seats):
            raise ServiceError(N_("{name} appears twice."), usage=USAGE_S, name=people[seat].name)
        seats.append((seat, entry.amount))
    scores = _checked(lambda: round_scores(seats, range(len(people))), USAGE_S)
    net = {people[s].id: amount for s, amount in scores.items()}
    entries = tuple(  # the round as its scores: however it was written
        ScoreEntry(PlayerRef(RefKind.ID, str(pid)), amount)
        for pid, amount in sorted(net.items())
        if amount
    )
    same = repeats.content(tx, table, people, Score(entries))
    return _record(tx, table, people, balances, EventKind.HAND, net, "score", same)


def pay(tx: Tx, req: Pay) -> Recorded:
    table = require_table(tx)
    seated = who.seated_with_balances(tx, table, table_unit(table))
    people, balances = seated.people, seated.balances
    payer = people[who.seat_of(tx, table, req.payer, people)]
    payee = people[who.seat_of(tx, table, req.payee, people)]
    net = _checked(lambda: transfer(payer.id, payee.id, req.amount), USAGE_PAY)
    same = repeats.content(tx, table, people, req)
    return _record(tx, table, people, balances, EventKind.PAY, net, "pay", same)


def _checked(compute: Callable[[], T], usage: str) -> T:
    try:
        return compute()
    except ScoringError as err:
        raise ServiceError(
            N_("This cannot be recorded: {problem}"),
            usage=usage,
            problem=ERROR_CODES.get(err.code, str(err)),
        ) from err


def _record(
    tx: Tx,
    table: TableRow,
    people: Sequence[PlayerRow],
    balances: Mapping[int, Held | None],
    kind: EventKind,
    net: Mapping[int, Fraction],
    reason: str,
    same: Any,
) -> Recorded:
    """Record the event and its transfers: a round as one payment per score (the table pays
    a positive score, takes a negative one), a transfer as one payment between the two."""
    unit = table_unit(table)
    data = {
        "names": [p.name for p in people],
        "seats": list(table.seats),
        "unit": unit,
        "net": {str(pid): str(amount) for pid, amount in net.items()},
    }
    event = record(tx, table, kind, data, same=same)
    if kind is EventKind.PAY:
        (payer,) = [pid for pid, a in net.items() if a < 0]
        (payee,) = [pid for pid, a in net.items() if a > 0]
        paid = points(net[payee])
        transfers = [_transfer(tx, event.id, unit, payer, payee, paid, reason)]
    else:
        transfers = [
            _transfer(
                tx,
                event.id,
                unit,
                None if amount > 0 else pid,
                pid if amount > 0 else None,
                points(abs(amount)),
                reason,
            )
            for pid, amount in net.items()
            if amount
        ]
    after = pay_out(tx, table, event, transfers, unit=unit, balances=balances)
    view = fresh_view(event, transfers, people)
    return Recorded(view=view, totals=tuple((p.name, after[p.id]) for p in people))


def _transfer(
    tx: Tx,
    event_id: int,
    unit: str,
    payer: int | None,
    payee: int | None,
    amount: Fraction | int,
    reason: str,
) -> TransferRow:
    return TransferRow(
        event_id=event_id,
        season_id=tx.season.id,
        unit=unit,
        payer_id=payer,
        payee_id=payee,
        amount=amount,
        reason=reason,
    )
