"""Insight into a season: /stats, /chart (the data behind the picture) and /export (the ledger).

Read-only, no Telegram and no plotting here. A season is loaded in five queries (the season, its
hands, their transfers, the tables they were played at, the chat's players), whatever its length.

Definitions (live hands only; undone hands count nowhere but in the export):
- hands: the hands of the game a player was seated for.
- wins: the hands a player won (several winners on one discard: one win each).
- self-draws: wins on a tile the winner drew himself: 自摸, 海底捞月, 杠上花 (whoever pays for
  it: the replacement tile is drawn from the wall), 天胡, 地胡.
- deal-ins: hands won on a player's tile (one, however many won on it): 点炮, 杠上炮, 抢杠 (the
  robbed player), 全求炮, 海底炮, and 人胡 (the discarder given, else the dealer who paid).
- biggest win / average win: the largest / mean net result of the hands a player won, with the
  hand's kong and 封胡 payments (exact fractions).
- head-to-head: for each pair, what each paid the other (every mahjong payment), netted.
- 510K: hands, first out, and wins: results (a hand, or a finished marathon) won by the player's
  team (four players) or by the player (three players).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from scoring import WinType
from service.replies import (
    ChartData,
    ChartLine,
    ChartSeries,
    ExportData,
    ExportRow,
    HeadToHead,
    K510Line,
    MahjongLine,
    StatsView,
)
from service.requests import Chart, Export, Stats
from service.views import season_for
from storage.gateway import ledger as book
from storage.gateway import players
from storage.rows import EventRow, SeasonRow, TransferRow
from storage.sql import Sql

UNITS = ("mahjong", "510k")  # the order of the games, as in /standings


def unit_of(game: str) -> str:
    """The unit a game scores in: mahjong points or 510K scores."""
    return "mahjong" if game == "mahjong" else "510k"


# --- loading ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Hand:
    event: EventRow
    seats: tuple[int | None, ...]  # player ids in seat order
    transfers: tuple[TransferRow, ...]

    @property
    def live(self) -> bool:
        return self.event.undone_by is None

    def net(self) -> dict[int, Fraction]:
        out: dict[int, Fraction] = defaultdict(Fraction)
        for t in self.transfers:
            if t.payer_id is not None:
                out[t.payer_id] -= t.amount
            if t.payee_id is not None:
                out[t.payee_id] += t.amount
        return out


@dataclass(frozen=True)
class _Season:
    season: SeasonRow
    hands: tuple[_Hand, ...]  # oldest first, undone ones included
    names: Mapping[int, str]  # player id → current name

    def live(self, unit: str) -> list[_Hand]:
        return [h for h in self.hands if h.live and unit_of(h.event.game) == unit]

    def name(self, pid: int) -> str:
        return self.names.get(pid, "?")


def _load(db: Sql, chat_id: int, number: int | None) -> _Season:
    season = season_for(db, chat_id, number)
    events = reversed(book.hands(db, season.id))
    by_event = book.season_transfers(db, season.id)
    names = {p.id: p.name for p in players.players_of_chat(db, chat_id)}
    hands = tuple(_Hand(e, tuple(e.data["seats"]), tuple(by_event.get(e.id, ()))) for e in events)
    return _Season(season, hands, names)


# --- /stats -------------------------------------------------------------------------------


def stats(db: Sql, chat_id: int, req: Stats) -> StatsView:
    """Per player counts of the season's live hands, for each game."""
    loaded = _load(db, chat_id, req.season)
    mahjong = loaded.live("mahjong")
    k510 = loaded.live("510k")
    return StatsView(
        season=loaded.season.number,
        archived=loaded.season.archived_at is not None,
        mahjong_hands=len(mahjong),
        mahjong=_mahjong_lines(loaded, mahjong),
        head_to_head=_head_to_head(loaded, mahjong),
        k510_hands=len(k510),
        k510=_k510_lines(loaded, k510),
        undone=sum(1 for h in loaded.hands if not h.live),
    )


def _mahjong_lines(loaded: _Season, hands: Sequence[_Hand]) -> tuple[MahjongLine, ...]:
    played: dict[int, int] = defaultdict(int)
    self_draws: dict[int, int] = defaultdict(int)
    deal_ins: dict[int, int] = defaultdict(int)
    won: dict[int, list[Fraction]] = defaultdict(list)  # the net of each hand won
    total: dict[int, Fraction] = defaultdict(Fraction)
    for hand in hands:
        net = hand.net()
        for pid in _people(hand):
            played[pid] += 1
        for pid, amount in net.items():
            total[pid] += amount
        dealt_in: set[int] = set()  # one deal-in a hand, however many won on the tile
        for win in hand.event.data.get("wins", []):
            winner = int(win["winner"])
            how = WinType(win["value"]["how"])
            won[winner].append(net.get(winner, Fraction(0)))
            if how.self_drawn:
                self_draws[winner] += 1
            dealer_in = _dealt_in(hand, win) if how.on_discard else None
            if dealer_in is not None:
                dealt_in.add(dealer_in)
        for pid in dealt_in:
            deal_ins[pid] += 1
    lines = [
        MahjongLine(
            name=loaded.name(pid),
            hands=played[pid],
            wins=len(won[pid]),
            self_draws=self_draws[pid],
            deal_ins=deal_ins[pid],
            biggest=max(won[pid]) if won[pid] else None,
            average=sum(won[pid], Fraction(0)) / len(won[pid]) if won[pid] else None,
            net=total[pid],
        )
        for pid in set(played) | set(total)
    ]
    return tuple(sorted(lines, key=lambda x: (-x.net, x.name.casefold())))


def _people(hand: _Hand) -> set[int]:
    """Everyone at the table for a hand: its seats and anyone it paid or charged."""
    out = {pid for pid in hand.seats if pid is not None}
    for t in hand.transfers:
        out.update(pid for pid in (t.payer_id, t.payee_id) if pid is not None)
    return out


def _dealt_in(hand: _Hand, win: Mapping[str, Any]) -> int | None:
    """The player on whose tile `win` was made: the discarder recorded, else (人胡 with none
    given) the one who paid the win."""
    if win.get("discarder") is not None:
        return int(win["discarder"])
    winner = int(win["winner"])
    payers = [t.payer_id for t in hand.transfers if t.reason == "win" and t.payee_id == winner]
    return payers[0] if len(payers) == 1 else None


def _head_to_head(loaded: _Season, hands: Sequence[_Hand]) -> tuple[HeadToHead, ...]:
    paid: dict[tuple[int, int], Fraction] = defaultdict(Fraction)
    for hand in hands:
        for t in hand.transfers:
            if t.payer_id is not None and t.payee_id is not None:
                paid[(t.payer_id, t.payee_id)] += t.amount
    pairs = []
    for a, b in {tuple(sorted(pair)) for pair in paid}:
        ab, ba = paid.get((a, b), Fraction(0)), paid.get((b, a), Fraction(0))
        payer, payee, out, back = (a, b, ab, ba) if ab >= ba else (b, a, ba, ab)
        pairs.append(HeadToHead(loaded.name(payer), loaded.name(payee), out, back))
    return tuple(sorted(pairs, key=lambda p: (-p.net, p.payer.casefold(), p.payee.casefold())))


def _k510_lines(loaded: _Season, hands: Sequence[_Hand]) -> tuple[K510Line, ...]:
    played: dict[int, int] = defaultdict(int)
    first: dict[int, int] = defaultdict(int)
    wins: dict[int, int] = defaultdict(int)
    results: dict[int, int] = defaultdict(int)
    total: dict[int, Fraction] = defaultdict(Fraction)
    for hand in hands:
        data = hand.event.data
        for pid in _people(hand):
            played[pid] += 1
        for pid, amount in hand.net().items():
            total[pid] += amount
        order = data.get("order") or []
        out_first = _seat(hand, int(order[0])) if order else None
        if out_first is not None:
            first[out_first] += 1
        result = data.get("result")
        if result is None:
            continue
        for pid in _people(hand):
            results[pid] += 1
        for seat in _winning_seats(result, len(hand.seats)):
            winner = _seat(hand, seat)
            if winner is not None:
                wins[winner] += 1
    lines = [
        K510Line(
            name=loaded.name(pid),
            hands=played[pid],
            first_out=first[pid],
            wins=wins[pid],
            results=results[pid],
            net=total[pid],
        )
        for pid in set(played) | set(total)
    ]
    return tuple(sorted(lines, key=lambda x: (-x.net, x.name.casefold())))


def _seat(hand: _Hand, seat: int) -> int | None:
    return hand.seats[seat] if 0 <= seat < len(hand.seats) else None


def _winning_seats(result: Mapping[str, Any], players: int) -> tuple[int, ...]:
    """Four players: the winning team's seats (team 0 = seats 1+3); three: the winner's."""
    winner = int(result["winner"])
    if result.get("team_points") is not None and players == 4:
        return (winner, winner + 2)
    return (winner,)


# --- /chart -------------------------------------------------------------------------------


def chart_data(db: Sql, chat_id: int, req: Chart) -> ChartData:
    """Each player's balance over the season's live hands, one series per game."""
    loaded = _load(db, chat_id, req.season)
    series = []
    for unit in UNITS:
        hands = loaded.live(unit)
        if hands:
            series.append(_series(loaded, unit, hands))
    return ChartData(
        season=loaded.season.number,
        archived=loaded.season.archived_at is not None,
        series=tuple(series),
    )


def _series(loaded: _Season, unit: str, hands: Sequence[_Hand]) -> ChartSeries:
    people: set[int] = set()
    for hand in hands:
        people |= _people(hand)
    balance = dict.fromkeys(people, Fraction(0))
    values: dict[int, list[Fraction]] = {pid: [Fraction(0)] for pid in people}
    for hand in hands:
        for pid, amount in hand.net().items():
            balance[pid] += amount
        for pid in people:
            values[pid].append(balance[pid])
    lines = sorted(
        (ChartLine(loaded.name(pid), tuple(values[pid])) for pid in people),
        key=lambda line: (-line.values[-1], line.name.casefold()),
    )
    return ChartSeries(
        unit=unit, hand_nos=tuple(h.event.hand_no or 0 for h in hands), lines=tuple(lines)
    )


# --- /export ------------------------------------------------------------------------------


def export_rows(db: Sql, chat_id: int, req: Export) -> ExportData:
    """The season's ledger: one row per payment of every hand, undone ones marked."""
    loaded = _load(db, chat_id, req.season)
    rows = tuple(
        ExportRow(
            at=_utc(hand.event.created_at),
            hand_no=hand.event.hand_no,
            game=hand.event.game,
            payer=None if t.payer_id is None else loaded.name(t.payer_id),
            payee=None if t.payee_id is None else loaded.name(t.payee_id),
            amount=Fraction(t.amount),
            reason=t.reason,
            recorded_by=hand.event.recorded_by_name,
            undone=not hand.live,
            event_id=hand.event.id,
        )
        for hand in loaded.hands
        for t in hand.transfers
    )
    return ExportData(
        season=loaded.season.number, archived=loaded.season.archived_at is not None, rows=rows
    )


def _utc(at: datetime) -> datetime:
    """Stored times are UTC; SQLite hands them back naive."""
    return at.astimezone(UTC).replace(tzinfo=None) if at.tzinfo is not None else at


def live_totals(rows: Iterable[ExportRow]) -> dict[tuple[str, str], Fraction]:
    """(unit, name) → the sum of the live rows: what /standings shows."""
    out: dict[tuple[str, str], Fraction] = defaultdict(Fraction)
    for row in rows:
        if row.undone:
            continue
        if row.payer is not None:
            out[(row.unit, row.payer)] -= row.amount
        if row.payee is not None:
            out[(row.unit, row.payee)] += row.amount
    return dict(out)
