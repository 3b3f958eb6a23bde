"""510K use case: /r records a hand's report; a marathon accumulates until a side reaches 500."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from scoring import ERROR_CODES
from scoring.errors import ScoringError
from scoring.games import EventKind, Game, Unit
from scoring.k510 import marathon_add, marathon_finished, score_hand, score_marathon
from scoring.k510_model import MarathonState, Report510k, Result510k
from service import players as who
from service import repeats
from service.errors import N_, ServiceError
from service.ledger import pay_out, record, recorded_view
from service.records import as_record, points
from service.replies import Progress, Recorded
from service.requests import Report
from service.squaring import team_shares
from service.tables import require_table
from service.unit import Tx
from storage.gateway import ledger as book
from storage.models import PlayerRow, TableRow, TransferRow

UNIT = Unit.K510
TARGET = 500
USAGE_R = N_("/r A=30 B=20 C=40 D=10/10 out A C")  # zh: 出 for out


def report(tx: Tx, req: Report) -> Recorded:
    table = require_table(tx, Game.K510, Game.K510_3)
    seated = who.seated_with_balances(tx, table, UNIT)
    people = seated.people
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
    transfers = [] if result is None else _transfers(tx, table, event.id, result, data)
    pay_out(tx, table, event, transfers, unit=UNIT, balances=seated.balances)
    return Recorded(view=recorded_view(tx, event, transfers, people), progress=progress)


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
    _require_over(tx, people, order)
    return Report510k(
        table=tuple(points[s][0] for s in range(n)),
        order=order,
        held=tuple(points[s][1] for s in range(n)),
    )


def _require_over(tx: Tx, people: Sequence[PlayerRow], order: tuple[int, ...]) -> None:
    """A finishing order that does not end the hand yet (`出 1 2`, two opponents) is refused
    naming who may be missing: whoever's going out next would end it, as the next of the
    order typed (its own words: 出 or out)."""
    n = len(people)
    if len(set(order)) != len(order) or not order:
        return  # the scoring's own refusals
    if n == 3:
        nexts = [s for s in range(3) if s not in order] if len(order) == 1 else []
    else:
        team_out = any((s + 2) % 4 in order for s in order)
        nexts = [] if team_out else [(s + 2) % 4 for s in order if (s + 2) % 4 not in order]
    if not nexts:
        return
    names = [people[s].name for s in nexts]
    raise ServiceError(
        N_(
            "The order out ({order}) does not end the hand: it ends when {problem}. Who went out"
            " next is missing: {names}. Add them at the end of the order, e.g.:"
        ),
        usage=f"{tx.ctx.text.strip()} {names[0]}",
        order=" → ".join(people[s].name for s in order),
        problem=N_("both players of a team are out") if n == 4 else N_("two players are out"),
        names=" / ".join(names),
    )


def _marathon_hand(
    tx: Tx, table: TableRow, people: Sequence[PlayerRow], rep: Report510k, data: dict[str, Any]
) -> tuple[Result510k | None, Progress | None]:
    last = book.last_live_event(tx.db, table.id, tx.season.id, (EventKind.HAND,))
    run = current_marathon(last.data if last is not None else None, table.seats)
    state = marathon_add(run.state, rep)
    finished = marathon_finished(state)
    played = _played_after(run.played, table.seats)
    data["marathon"] = {
        "number": run.number,
        "state": as_record(state),
        "finished": finished,
        **{f"{'team' if len(played) == 2 else 'seat'}{t + 1}": g for t, g in enumerate(played)},
    }
    if finished:
        return score_marathon(state, zerosum=table.zerosum), None
    names = [p.name for p in people]
    newcomers = tuple(names[s] for s in run.newcomers)
    took_over = tuple((names[s], name) for s, name in run.took_over)
    return None, progress(state, names, newcomers, took_over)


@dataclass(frozen=True)
class Marathon:
    """Where a marathon stands before a hand, for the players now seated."""

    number: int
    state: MarathonState | None  # None: the next hand starts one
    newcomers: tuple[int, ...] = ()  # seats of those who start at 0 (no seat was left)
    took_over: tuple[tuple[int, str], ...] = ()  # (seat, name of who left it)
    played: tuple[dict[str, str], ...] = ()  # per team (4) or seat (3): player id → hands


def current_marathon(last_hand: Mapping[str, Any] | None, seats: Sequence[int]) -> Marathon:
    """The running marathon, from the data of the table's last live hand, for the players in
    `seats` (ids). Totals follow a player who stays to another seat; who takes the seat of
    someone who left plays on with that seat's totals (three players: the seat keeps its
    progress; four: the team does). The hands each played in a seat (three) or for a team
    (four) share its final score."""
    info = last_hand.get("marathon") if last_hand is not None else None
    if info is None or last_hand is None:
        return Marathon(1, None)
    if info["finished"]:
        return Marathon(int(info["number"]) + 1, None)
    state = MarathonState(**{k: _tuple(v) for k, v in info["state"].items()})
    before = {pid: seat for seat, pid in enumerate(last_hand["seats"])}
    moved = [before.get(pid) for pid in seats]
    took_over: list[tuple[int, str]] = []
    four = state.players == 4
    left = [s for s, pid in enumerate(last_hand["seats"]) if pid not in seats]
    for seat, old in enumerate(moved):
        if old is None and left:
            # the seat they left, else (four) a partner's seat of the same team, else any
            heir = min(left, key=_nearest(seat, four))
            left.remove(heir)
            moved[seat] = heir
            took_over.append((seat, str(last_hand["names"][heir])))

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
    if four:
        played = tuple(dict(info.get(f"team{t + 1}", {})) for t in range(2))
    else:  # a seat's hands go where its totals go
        played = tuple({} if old is None else dict(info.get(f"seat{old + 1}", {})) for old in moved)
    return Marathon(
        int(info["number"]),
        state,
        tuple(s for s, old in enumerate(moved) if old is None),
        tuple(took_over),
        played,
    )


def _nearest(seat: int, four: bool) -> Callable[[int], tuple[bool, bool, int]]:
    """The order in which a newcomer at `seat` takes over a seat left: that seat, then (four
    players) the seats of its team, then any."""
    return lambda left: (left != seat, four and left % 2 != seat % 2, left)


def _played_after(
    before: tuple[dict[str, str], ...], seats: Sequence[int]
) -> tuple[dict[str, str], ...]:
    """The hands each player played for each team, this hand counted (4 players: team 1 is
    seats 1+3, team 2 seats 2+4), or in each seat (3 players: its totals, whoever sat in it)."""
    groups = 2 if len(seats) == 4 else len(seats)
    teams = [dict(before[t]) if len(before) > t else {} for t in range(groups)]
    for seat, pid in enumerate(seats):
        team = teams[seat % groups]
        team[str(pid)] = str(int(team.get(str(pid), "0")) + 1)
    return tuple(teams)


def _tuple(value: Any) -> Any:
    return tuple(value) if isinstance(value, list) else value


def progress(
    state: MarathonState,
    names: Sequence[str],
    newcomers: tuple[str, ...] = (),
    took_over: tuple[tuple[str, str], ...] = (),
) -> Progress:
    if state.players == 4:
        sides = tuple(
            (f"{names[a]}+{names[b]}", state.card_points[a] + state.card_points[b])
            for a, b in ((0, 2), (1, 3))
        )
    else:
        sides = tuple(zip(names, state.card_points, strict=True))
    return Progress(
        sides=sides, target=TARGET, hands=state.hands, newcomers=newcomers, took_over=took_over
    )


def _result_data(result: Result510k) -> dict[str, Any]:
    out = as_record(result)
    out["scores"] = [str(s) for s in result.scores]
    out["bonus"] = str(result.bonus)
    return out


def _transfers(
    tx: Tx, table: TableRow, event_id: int, result: Result510k, data: Mapping[str, Any]
) -> list[TransferRow]:
    shares = team_shares(data)
    if shares is not None:
        return _shared(tx, table, event_id, result, shares)
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


def _shared(
    tx: Tx,
    table: TableRow,
    event_id: int,
    result: Result510k,
    shares: Sequence[Mapping[int, Fraction]],
) -> list[TransferRow]:
    """A finished marathon: each team's score (its two seats'), or each seat's of three,
    shared among everyone who played in it, by the hands they played in it
    (`squaring.team_shares`)."""
    owed: dict[int, Fraction] = {}
    for team, share in enumerate(shares):  # a team: seats t and t+2; a seat of three: t
        total = sum((v for s, v in enumerate(result.scores) if s % len(shares) == team), 0)
        for pid, part in share.items():
            owed[pid] = owed.get(pid, Fraction(0)) + total * part
    seat_of = {pid: seat for seat, pid in enumerate(table.seats)}
    out = []
    for pid, score in owed.items():
        if score == 0:
            continue
        seat = seat_of.get(pid)
        out.append(
            TransferRow(
                event_id=event_id,
                season_id=tx.season.id,
                unit=UNIT,
                payer_id=None if score > 0 else pid,
                payee_id=pid if score > 0 else None,
                amount=points(abs(score)),
                reason="score",
                detail={
                    "card_points": None if seat is None else result.card_points[seat],
                    "doubled": result.doubled,
                },
            )
        )
    return out
