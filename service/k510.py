"""510K use case: /r records a hand's report; a marathon accumulates until a side reaches 500."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scoring import ERROR_CODES
from scoring.errors import ScoringError
from scoring.games import EventKind, Game, Unit
from scoring.k510 import marathon_add, marathon_finished, score_hand, score_marathon
from scoring.k510_model import MarathonState, Report510k, Result510k
from service import players as who
from service import repeats
from service.errors import N_, ServiceError
from service.ledger import fresh_view, pay_out, record
from service.records import as_record, points
from service.replies import Progress, Recorded
from service.requests import Report
from service.tables import require_table
from service.unit import Tx
from storage.gateway import ledger as book
from storage.models import PlayerRow, TableRow, TransferRow

UNIT = Unit.K510
TARGET = 500
USAGE_R = "/r A=30 B=20 C=40 D=10/10 out A C"  # no words to translate


def report(tx: Tx, req: Report) -> Recorded:
    table = require_table(tx, Game.K510, Game.K510_3)
    people, balances = who.seated_with_balances(tx, table, UNIT)
    rep = _report(tx, table, people, req)
    data: dict[str, Any] = {
        "names": [p.name for p in people],
        "seats": list(table.seats),
        "table": list(rep.table),
        "order": list(rep.order),
        "held": list(rep.held),
    }
    try:
        if table.marathon:
            result, progress = _marathon_hand(tx, table, people, rep, data)
        else:
            result, progress = score_hand(rep, zerosum=table.zerosum), None
    except ScoringError as err:
        raise ServiceError(
            N_("This report cannot be scored: {problem}"),
            usage=USAGE_R,
            problem=ERROR_CODES.get(err.code, str(err)),
        ) from err
    if result is not None:
        data["result"] = _result_data(result)
    same = repeats.content(tx, table, people, req)
    event = record(tx, table, EventKind.HAND, data, same=same)
    transfers = [] if result is None else _transfers(tx, table, event.id, result)
    pay_out(tx, table, event, transfers, unit=UNIT, balances=balances)
    return Recorded(view=fresh_view(event, transfers, people), progress=progress)


def _report(tx: Tx, table: TableRow, people: Sequence[PlayerRow], req: Report) -> Report510k:
    n = len(people)
    points: dict[int, tuple[int, int]] = {}
    for entry in req.entries:
        seat = who.seat_of(tx, table, entry.player, people)
        if seat in points:
            raise ServiceError(N_("{name} appears twice."), usage=USAGE_R, name=people[seat].name)
        points[seat] = (entry.table, entry.held or 0)
    missing = [people[s].name for s in range(n) if s not in points]
    if missing:
        raise ServiceError(
            N_("Every seated player needs their table points; missing: {names}."),
            usage=USAGE_R,
            names=", ".join(missing),
        )
    order = tuple(who.seat_of(tx, table, ref, people) for ref in req.out)
    return Report510k(
        table=tuple(points[s][0] for s in range(n)),
        order=order,
        held=tuple(points[s][1] for s in range(n)),
    )


def _marathon_hand(
    tx: Tx, table: TableRow, people: Sequence[PlayerRow], rep: Report510k, data: dict[str, Any]
) -> tuple[Result510k | None, Progress | None]:
    last = book.last_live_event(tx.db, table.id, tx.season.id, (EventKind.HAND,))
    number, state, newcomers = current_marathon(
        last.data if last is not None else None, table.seats
    )
    state = marathon_add(state, rep)
    finished = marathon_finished(state)
    data["marathon"] = {
        "number": number,
        "state": as_record(state),
        "finished": finished,
    }
    if finished:
        return score_marathon(state, zerosum=table.zerosum), None
    names = [p.name for p in people]
    return None, progress(state, names, tuple(names[s] for s in newcomers))


def current_marathon(
    last_hand: Mapping[str, Any] | None, seats: Sequence[int]
) -> tuple[int, MarathonState | None, tuple[int, ...]]:
    """The running marathon's number and state (None: the next hand starts one), from the data
    of the table's last live hand, for the players in `seats` (ids), and the seats of those
    who were not at that hand. The totals belong to people: they follow a player to another
    seat; who sits down starts at 0, who stands up leaves the marathon with theirs."""
    info = last_hand.get("marathon") if last_hand is not None else None
    if info is None or last_hand is None:
        return 1, None, ()
    if info["finished"]:
        return int(info["number"]) + 1, None, ()
    state = MarathonState(**{k: _tuple(v) for k, v in info["state"].items()})
    before = {pid: seat for seat, pid in enumerate(last_hand["seats"])}
    moved = [before.get(pid) for pid in seats]

    def follow(values: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(0 if old is None else values[old] for old in moved)

    now = {old: seat for seat, old in enumerate(moved) if old is not None}
    state = MarathonState(
        card_points=follow(state.card_points),
        table=follow(state.table),
        first_out=follow(state.first_out),
        hands=state.hands,
        last_order=tuple(now[old] for old in state.last_order if old in now),
    )
    return int(info["number"]), state, tuple(s for s, old in enumerate(moved) if old is None)


def _tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def progress(
    state: MarathonState, names: Sequence[str], newcomers: tuple[str, ...] = ()
) -> Progress:
    if state.players == 4:
        sides = tuple(
            (f"{names[a]}+{names[b]}", state.card_points[a] + state.card_points[b])
            for a, b in ((0, 2), (1, 3))
        )
    else:
        sides = tuple(zip(names, state.card_points, strict=True))
    return Progress(sides=sides, target=TARGET, hands=state.hands, newcomers=newcomers)


def _result_data(result: Result510k) -> dict[str, Any]:
    out = as_record(result)
    out["scores"] = [str(s) for s in result.scores]
    out["bonus"] = str(result.bonus)
    return out


def _transfers(tx: Tx, table: TableRow, event_id: int, result: Result510k) -> list[TransferRow]:
    out = []
    for seat, score in enumerate(result.scores):
        if score == 0:
            continue
        pid = table.seats[seat]
        out.append(
            TransferRow(
                event_id=event_id,
                season_id=tx.season.id,
                unit=UNIT,
                payer_id=None if score > 0 else pid,
                payee_id=pid if score > 0 else None,
                amount=points(abs(score)),
                reason="score",
                detail={"card_points": result.card_points[seat], "doubled": result.doubled},
            )
        )
    return out
