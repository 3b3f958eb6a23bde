"""Insight into a season: /stats, /chart (the data behind the picture) and /export (the ledger).

Read-only, no Telegram and no plotting here, and nothing here grows with the season in memory:
/stats is computed from one streamed pass over the season's hands (`service.tally`), /chart keeps
a few hundred points of one streamed pass over its payments, /export streams rows to a file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy.engine import Connection, Engine

from scoring.games import Game, Unit, is_points
from scoring.hand_stats import COUNTERS
from service import tally
from service.names import told_apart
from service.replies import (
    ChartData,
    ChartLine,
    ChartSeries,
    ExportData,
    ExportRow,
    FreeLine,
    FreeSection,
    HeadToHead,
    K510Line,
    MahjongLine,
    StatsView,
)
from service.requests import Chart, Export, Stats
from service.views import chat_zone, season_for
from storage.gateway import ledger as book
from storage.gateway import players
from storage.unit_of_work import reading

# --- /stats -------------------------------------------------------------------------------


def stats(db: Connection, chat_id: int, req: Stats) -> StatsView:
    """Per player counts of the season's live hands, for each game: counted from the season's
    hands (`service.tally`), nets from the balances (transfers count in the nets only: a
    player with only transfers has a line, no hands)."""
    season = season_for(db, chat_id, req.season)
    kept = tally.season(db, season.id)
    net = {
        (b.unit, b.player_id): b.amount for b in book.balances(db, season.id) if is_points(b.unit)
    }
    names = told_apart((p.id, p.name) for p in players.players_of_chat(db, chat_id))

    def name(pid: int) -> str:
        return names.get(pid, "?")

    counts = dict(kept.counts)
    for key, amount in net.items():  # only transfers: no hands, a net
        if amount and key not in counts:
            counts[key] = dict.fromkeys(COUNTERS, 0)
    mahjong, k510 = [], []
    free: dict[str, list[FreeLine]] = defaultdict(list)
    for (unit, pid), c in counts.items():
        total = net.get((unit, pid), Fraction(0))
        values = [(Fraction(v), t) for v, t in kept.wins.get((unit, pid), {}).items()]
        if Unit.of(unit) is Unit.FREE:
            free[unit].append(
                FreeLine(
                    name=name(pid),
                    rounds=c["hands"],
                    wins=c["wins"],
                    biggest=max(v for v, _ in values) if values else None,
                    net=total,
                )
            )
        elif unit == "mahjong":
            wins = sum(times for _, times in values)
            mahjong.append(
                MahjongLine(
                    name=name(pid),
                    hands=c["hands"],
                    wins=wins,
                    self_draws=c["self_draws"],
                    deal_ins=c["deal_ins"],
                    biggest=max(v for v, _ in values) if values else None,
                    average=sum((v * t for v, t in values), Fraction(0)) / wins if wins else None,
                    net=total,
                )
            )
        else:
            k510.append(
                K510Line(
                    name=name(pid),
                    hands=c["hands"],
                    first_out=c["first_out"],
                    wins=c["wins"],
                    results=c["results"],
                    net=total,
                )
            )
    return StatsView(
        season=season.number,
        archived=season.archived_at is not None,
        mahjong_hands=kept.live("mahjong"),
        mahjong=tuple(sorted(mahjong, key=lambda x: (-x.net, x.name.casefold()))),
        head_to_head=_head_to_head(kept.pairs, name),
        k510_hands=kept.live("510k"),
        k510=tuple(sorted(k510, key=lambda x: (-x.net, x.name.casefold()))),
        free=tuple(
            FreeSection(
                unit=unit,
                rounds=kept.live(unit),
                lines=tuple(sorted(free[unit], key=lambda x: (-x.net, x.name.casefold()))),
            )
            for unit in sorted(free, key=Unit.order)
        ),
        undone=kept.undone,
    )


def _head_to_head(
    paid: Mapping[tuple[int, int], Fraction | int], name: Callable[[int], str]
) -> tuple[HeadToHead, ...]:
    pairs = []
    for a, b in {tuple(sorted(pair)) for pair in paid}:
        ab, ba = Fraction(paid.get((a, b), 0)), Fraction(paid.get((b, a), 0))
        payer, payee, out, back = (a, b, ab, ba) if ab >= ba else (b, a, ba, ab)
        pairs.append(HeadToHead(name(payer), name(payee), out, back))
    return tuple(sorted(pairs, key=lambda p: (-p.net, p.payer.casefold(), p.payee.casefold())))


# --- /chart -------------------------------------------------------------------------------

CHART_POINTS = 400  # balances drawn per series at most (the picture is ~1,000 pixels wide)


def chart_data(db: Connection, chat_id: int, req: Chart) -> ChartData:
    """Each player's balance over the season's live hands and transfers, one series per unit
    (mahjong, 510K, each free game), at no more than `CHART_POINTS` + 1 points (a picture shows
    no more), exact: evenly spaced records (every one when few), from one streamed pass over
    the season's payments, and the balances now. /chart draws it, and the Mini App."""
    season = season_for(db, chat_id, req.season)
    counts = book.live_counts(db, season.id)
    now: dict[str, dict[int, Fraction]] = defaultdict(dict)  # everyone with a balance
    for b in book.balances(db, season.id):
        now[b.unit][b.player_id] = b.amount
    units = sorted(filter(is_points, counts), key=Unit.order)  # a fee's money: not charted
    points = _every_record(db, season.id, counts)
    names = told_apart((p.id, p.name) for p in players.players_of_chat(db, chat_id))
    return ChartData(
        season=season.number,
        archived=season.archived_at is not None,
        series=tuple(
            _series(unit, [*points[unit], (counts[unit], now[unit])], names) for unit in units
        ),
        live_hands=book.live_hands(db, season.id),
    )


Point = tuple[int, Mapping[int, Fraction | int]]  # live records played, balances by player


def _every_record(
    db: Connection, season_id: int, counts: Mapping[str, int]
) -> dict[str, list[Point]]:
    """Each unit's balances after evenly spaced live records (every one when few), the last
    one left out (the balances now): one streamed pass over the season's payments."""
    return balances_after(db, season_id, {unit: _evenly(n) for unit, n in counts.items()})


def _evenly(records: int) -> set[int]:
    """At most `CHART_POINTS` evenly spaced counts of records played, before the last."""
    step = max(1, -(-records // CHART_POINTS))  # ceil: at most CHART_POINTS samples
    return set(range(step, records, step))


def balances_after(
    db: Connection, season_id: int, wanted: Mapping[str, Collection[int]]
) -> dict[str, list[Point]]:
    """Each unit's balances after each `wanted` count of its live records (and none played),
    from one streamed pass over the season's payments."""
    samples = {unit: _Samples(at) for unit, at in wanted.items()}
    last_event = None
    sampler: _Samples | None = None
    for event_id, game, unit, payer, payee, amount in book.stream_live_payments(db, season_id):
        if event_id != last_event:
            if sampler is not None:
                sampler.hand_done()
            unit = unit or Game(game).unit.value
            sampler = samples.setdefault(unit, _Samples(()))
            last_event = event_id
        if amount is not None and sampler is not None:
            sampler.pay(payer, payee, amount)
    if sampler is not None:
        sampler.hand_done()
    return {unit: sampler.kept for unit, sampler in samples.items()}


class _Samples:
    """A series' running balances, kept after the wanted counts of records played."""

    def __init__(self, wanted: Collection[int]) -> None:
        self.wanted = set(wanted)
        self.balance: dict[int, Fraction | int] = defaultdict(int)
        self.played = 0
        self.kept: list[Point] = [(0, {})]

    def pay(self, payer: int | None, payee: int | None, amount: Fraction | int) -> None:
        if payer is not None:
            self.balance[payer] -= amount
        if payee is not None:
            self.balance[payee] += amount

    def hand_done(self) -> None:
        self.played += 1
        if self.played in self.wanted:
            self.kept.append((self.played, dict(self.balance)))


def _series(unit: str, points: list[Point], names: Mapping[int, str]) -> ChartSeries:
    people = {pid for _, balances in points for pid in balances}
    lines = sorted(
        (
            ChartLine(
                names.get(pid, "?"),
                tuple(Fraction(balances.get(pid, 0)) for _, balances in points),
            )
            for pid in people
        ),
        key=lambda line: (-line.values[-1], line.name.casefold()),
    )
    return ChartSeries(unit=unit, at=tuple(at for at, _ in points), lines=tuple(lines))


# --- /export ------------------------------------------------------------------------------


def export_rows(db: Connection, chat_id: int, req: Export) -> ExportData:
    """The season's ledger: one row per payment of every hand and transfer, undone ones
    marked (`/export all`: and every version /edit replaced, marked undone). Counted here; the
    rows stream when the file is written (`_Ledger`)."""
    season = season_for(db, chat_id, req.season)
    kinds = book.TRAIL if req.trail else book.NUMBERED
    count, _records, seqs = book.export_size(db, season.id, kinds)
    hands = book.live_hands(db, season.id)
    return ExportData(
        season=season.number,
        archived=season.archived_at is not None,
        rows=_Ledger(db.engine, chat_id, season.id, seqs, kinds) if count else (),
        count=count,
        hands=hands,
        tz=chat_zone(db, chat_id),
    )


@dataclass(frozen=True)
class _Ledger:
    """A season's export rows up to its last record when counted, read anew (a snapshot) at
    each iteration. An undo between the answer and the file shows in the file: the file is
    the newer. The rows are the database driver's, passed on untouched (no Python per row)."""

    engine: Engine
    chat_id: int
    season_id: int
    seqs: range  # the season's records when counted
    kinds: Sequence[str] = book.NUMBERED  # `book.TRAIL`: the versions /edit replaced too

    def __iter__(self) -> Iterator[ExportRow]:
        with reading(self.engine) as db:
            rows = book.stream_export(db, self.chat_id, self.season_id, self.seqs, self.kinds)
            yield from rows
