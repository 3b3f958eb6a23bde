"""Insight into a season: /stats, /chart (the data behind the picture) and /export (the ledger).

Read-only, no Telegram and no plotting here, and nothing here grows with the season in memory:
/stats reads the statistics kept as hands are recorded and undone (`scoring.hand_stats` defines
them), /chart one streamed pass keeping a few hundred points, /export rows streamed to a file.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction

from sqlalchemy.engine import Engine

from scoring.games import Unit
from scoring.hand_stats import COUNTERS
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
from storage.db import read_transaction
from storage.gateway import ledger as book
from storage.gateway import players
from storage.gateway.stats import season_stats
from storage.sql import Sql


def unit_of(game: str, unit: str | None = None) -> str:
    """The unit a record moves: its payments' (a free round's, a transfer's) when it has any,
    else its game's: mahjong points or 510K scores."""
    if unit is not None:
        return unit
    return "mahjong" if game == "mahjong" else "510k"


# --- /stats -------------------------------------------------------------------------------


def stats(db: Sql, chat_id: int, req: Stats) -> StatsView:
    """Per player counts of the season's live hands, for each game: read from the statistics
    kept as hands are recorded and undone (`storage.gateway.stats`), nets from the balances
    (transfers count in the nets only: a player with only transfers has a line, no hands)."""
    season = season_for(db, chat_id, req.season)
    kept = season_stats(db, season.id)
    net = {(b.unit, b.player_id): b.amount for b in book.balances(db, season.id)}
    names = {p.id: p.name for p in players.players_of_chat(db, chat_id)}

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
        if Unit.of(unit) is Unit.FREE:
            values = kept.wins.get((unit, pid), [])
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
            values = kept.wins.get((unit, pid), [])
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
        mahjong_hands=kept.hands.get("mahjong", (0, 0))[0],
        mahjong=tuple(sorted(mahjong, key=lambda x: (-x.net, x.name.casefold()))),
        head_to_head=_head_to_head(kept.pairs, name),
        k510_hands=kept.hands.get("510k", (0, 0))[0],
        k510=tuple(sorted(k510, key=lambda x: (-x.net, x.name.casefold()))),
        free=tuple(
            FreeSection(
                unit=unit,
                rounds=kept.hands.get(unit, (0, 0))[0],
                lines=tuple(sorted(free[unit], key=lambda x: (-x.net, x.name.casefold()))),
            )
            for unit in sorted(free, key=Unit.order)
        ),
        undone=sum(undone for _, undone in kept.hands.values()),
    )


def _head_to_head(
    paid: Mapping[tuple[int, int], Fraction], name: Callable[[int], str]
) -> tuple[HeadToHead, ...]:
    pairs = []
    for a, b in {tuple(sorted(pair)) for pair in paid}:
        ab, ba = paid.get((a, b), Fraction(0)), paid.get((b, a), Fraction(0))
        payer, payee, out, back = (a, b, ab, ba) if ab >= ba else (b, a, ba, ab)
        pairs.append(HeadToHead(name(payer), name(payee), out, back))
    return tuple(sorted(pairs, key=lambda p: (-p.net, p.payer.casefold(), p.payee.casefold())))


# --- /chart -------------------------------------------------------------------------------


def chart_data(db: Sql, chat_id: int, req: Chart) -> ChartData:
    """Each player's balance over the season's live hands and transfers, one series per unit
    (mahjong, 510K, each free game), at no more than `CHART_POINTS` evenly spaced records (a
    picture shows no more): one streamed pass over the season's payments, keeping only the
    sampled balances."""
    season = season_for(db, chat_id, req.season)
    counts: dict[str, int] = defaultdict(int)
    for (game, unit), n in book.live_record_counts(db, season.id).items():
        counts[unit_of(game, unit)] += n
    people: dict[str, set[int]] = defaultdict(set)  # everyone with a balance (seated ones too)
    for b in book.balances(db, season.id):
        people[b.unit].add(b.player_id)
    units = sorted((u for u in counts if counts[u]), key=Unit.order)
    samples = {unit: _Samples(counts[unit]) for unit in units}
    last_event = None
    sampler: _Samples | None = None
    for event_id, hand_no, game, unit, payer, payee, amount in book.stream_live_payments(
        db, season.id
    ):
        if event_id != last_event:
            if sampler is not None:
                sampler.hand_done()
            sampler, last_event = samples[unit_of(game, unit)], event_id
            sampler.hand_no = hand_no or 0
        if amount is not None and sampler is not None:
            sampler.pay(payer, payee, amount)
    if sampler is not None:
        sampler.hand_done()
    names = {p.id: p.name for p in players.players_of_chat(db, chat_id)}
    return ChartData(
        season=season.number,
        archived=season.archived_at is not None,
        series=tuple(samples[unit].series(unit, people[unit], names) for unit in units),
    )


CHART_POINTS = 400  # balances drawn per series at most (the picture is ~1,000 pixels wide)


class _Samples:
    """A series' running balances, kept at evenly spaced hands (every hand when few)."""

    def __init__(self, hands: int) -> None:
        self.hands = hands
        step = max(1, -(-hands // CHART_POINTS))  # ceil: at most CHART_POINTS samples
        self.wanted = set(range(step, hands + 1, step)) | {hands}
        self.balance: dict[int, Fraction | int] = defaultdict(int)
        self.played = 0
        self.hand_no = 0
        self.at: list[int] = [0]
        self.hand_nos: list[int] = []
        self.kept: list[dict[int, Fraction | int]] = [{}]

    def pay(self, payer: int | None, payee: int | None, amount: Fraction | int) -> None:
        if payer is not None:
            self.balance[payer] -= amount
        if payee is not None:
            self.balance[payee] += amount

    def hand_done(self) -> None:
        self.played += 1
        if self.played in self.wanted:
            self.at.append(self.played)
            self.hand_nos.append(self.hand_no)
            self.kept.append(dict(self.balance))

    def series(self, unit: str, seated: set[int], names: Mapping[int, str]) -> ChartSeries:
        people = seated | set(self.balance)
        lines = sorted(
            (
                ChartLine(
                    names.get(pid, "?"), tuple(Fraction(kept.get(pid, 0)) for kept in self.kept)
                )
                for pid in people
            ),
            key=lambda line: (-line.values[-1], line.name.casefold()),
        )
        return ChartSeries(
            unit=unit,
            hand_nos=tuple(self.hand_nos),
            lines=tuple(lines),
            at=tuple(self.at),
            played=self.played,
        )


# --- /export ------------------------------------------------------------------------------


def export_rows(db: Sql, chat_id: int, req: Export) -> ExportData:
    """The season's ledger: one row per payment of every hand and transfer, undone ones
    marked. Counted here; the rows stream when the file is written (`_Ledger`)."""
    season = season_for(db, chat_id, req.season)
    count, hands, seqs = book.export_size(db, season.id)
    return ExportData(
        season=season.number,
        archived=season.archived_at is not None,
        rows=_Ledger(db.engine, chat_id, season.id, seqs) if count else (),
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

    def __iter__(self) -> Iterator[ExportRow]:
        with read_transaction(self.engine) as db:
            yield from book.stream_export(db, self.chat_id, self.season_id, self.seqs)


def live_totals(rows: Iterable[ExportRow]) -> dict[tuple[str, str], Fraction]:
    """(unit, name) → the sum of the live rows: what /standings shows."""
    out: dict[tuple[str, str], Fraction] = defaultdict(Fraction)
    for _at, _hand, _game, unit, payer, payee, amount, _reason, _by, undone in rows:
        if undone:
            continue
        if payer is not None:
            out[(unit, payer)] -= Fraction(amount)
        if payee is not None:
            out[(unit, payee)] += Fraction(amount)
    return dict(out)
