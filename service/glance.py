"""What the Mini App shows beside the chat's views: the open table's kongs of the current hand,
and the season's balances hand by hand for its chart (sampled: a phone draws a few hundred
points, not 10,000)."""

from __future__ import annotations

import threading
from array import array
from collections import OrderedDict
from dataclasses import dataclass, field

from scoring.games import EventKind, Game, Unit
from service.ledger import hand_views
from service.replies import HandView
from service.views import season_for
from storage.gateway import chats, curves, players, tables
from storage.gateway import ledger as book
from storage.sql import Sql

CHART_POINTS = 400


@dataclass(frozen=True)
class Curve:
    name: str
    values: tuple[float, ...]  # the balance at the start (0), then after each sampled hand


@dataclass(frozen=True)
class Curves:
    """One game's unit: the sampled hand numbers (0: the start) and each player's balances,
    best final balance first. The last point is after the last hand (equals /standings)."""

    unit: str
    hand_nos: tuple[int, ...]
    lines: tuple[Curve, ...]


def pending_kongs(db: Sql, chat_id: int, thread_id: int) -> tuple[HandView, ...]:
    """The kongs recorded at the open table since its last live hand, oldest first (they
    settle with the hand that ends it)."""
    table = tables.open_table(db, chat_id, thread_id)
    season = chats.current_season(db, chat_id)
    if table is None or season is None or table.season_id != season.id:
        return ()
    tail = book.live_tail(db, table.id, season.id)
    return tuple(hand_views(db, [e for e in reversed(tail) if e.kind == EventKind.KONG]))


class _Unit:
    """One unit's running balances: after each live hand, every player's balance."""

    __slots__ = ("balances", "current", "hand_nos")

    def __init__(self) -> None:
        self.hand_nos = array("q")
        self.balances: dict[int, array[float]] = {}
        self.current: dict[int, float] = {}

    def add(self, hand_no: int, changes: dict[int, float]) -> None:
        for pid, change in changes.items():
            if pid not in self.balances:  # a newcomer had 0 until now
                self.balances[pid] = array("d", bytes(8 * len(self.hand_nos)))
                self.current[pid] = 0.0
            self.current[pid] += change
        self.hand_nos.append(hand_no)
        for pid, balances in self.balances.items():
            balances.append(self.current[pid])


@dataclass
class _Season:
    seq: int  # the chat's newest event taken into account
    units: dict[str, _Unit] = field(default_factory=dict)

    def extend(self, payments: list[curves.Payment]) -> None:
        last: int | None = None
        hand_no, unit, changes = 0, "", dict[int, float]()
        for seq, game, number, payer, payee, amount in payments:
            if seq != last:
                if last is not None:
                    self.units.setdefault(unit, _Unit()).add(hand_no, changes)
                last, hand_no, unit, changes = seq, number or 0, Game(game).unit, {}
            if amount is None:
                continue
            value = _amount(amount)
            if payer is not None:
                changes[payer] = changes.get(payer, 0.0) - value
            if payee is not None:
                changes[payee] = changes.get(payee, 0.0) + value
        if last is not None:
            self.units.setdefault(unit, _Unit()).add(hand_no, changes)


class CurveCache:
    """Seasons' running balances kept between requests: a new hand reads only itself; an undo
    (it changes the past) reads the season again. The newest `size` seasons are kept."""

    def __init__(self, size: int = 32) -> None:
        self.size = size
        self._seasons: OrderedDict[tuple[int, int], _Season] = OrderedDict()
        self._lock = threading.Lock()

    def current(self, db: Sql, chat_id: int, season_id: int) -> _Season:
        with self._lock:
            key = (chat_id, season_id)
            state = self._seasons.pop(key, None)
            if state is not None:
                since = curves.kinds_since(db, chat_id, state.seq)
                if any(kind == EventKind.UNDO for _, kind in since):
                    state = None
                elif since:
                    state.extend(curves.live_payments(db, season_id, state.seq))
                    state.seq = since[-1][0]
            if state is None:
                chat = chats.get_chat(db, chat_id)
                state = _Season(seq=chat.next_seq - 1 if chat else 0)
                state.extend(curves.live_payments(db, season_id))
            self._seasons[key] = state
            while len(self._seasons) > self.size:
                self._seasons.popitem(last=False)
            return state


def _amount(text: str) -> float:
    top, _, bottom = text.partition("/")
    return int(top) / int(bottom) if bottom else float(top)


def balance_curves(
    db: Sql,
    chat_id: int,
    season_number: int | None,
    cache: CurveCache,
    points: int = CHART_POINTS,
) -> tuple[Curves, ...]:
    """Each unit's balances over the season's live hands, at most `points` + 1 points each."""
    season = season_for(db, chat_id, season_number)
    state = cache.current(db, chat_id, season.id)
    names = {p.id: p.name for p in players.players_of_chat(db, chat_id)}
    return tuple(
        _sampled(unit, state.units[unit], names, points)
        for unit in sorted(state.units, key=lambda u: list(Unit).index(Unit(u)))
    )


def _sampled(unit: str, run: _Unit, names: dict[int, str], points: int) -> Curves:
    n = len(run.hand_nos)
    keep = (
        sorted({round((i + 1) * n / points) - 1 for i in range(points)}) if n > points else range(n)
    )
    lines = sorted(
        (
            Curve(names.get(pid, "?"), (0.0, *(balances[i] for i in keep)))
            for pid, balances in run.balances.items()
        ),
        key=lambda line: (-line.values[-1], line.name.casefold()),
    )
    return Curves(unit, (0, *(run.hand_nos[i] for i in keep)), tuple(lines))
