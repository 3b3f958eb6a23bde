"""The views derived from the ledger, computed when asked, equal the figures kept on the write path
(`stat_*`, `balance_mark`, `rating_sitting`) on random evenings: mahjong hands and kongs, 510K
marathons, free rounds, transfers, undos, substitutions, renames, merges, pauses of play, new
seasons, and a group that became a supergroup whose records join the new chat."""

from __future__ import annotations

import itertools
from collections import Counter
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Connection, Engine

from service import insight, rating, tally
from service.replies import ResetAsk
from service.requests import Reset
from storage.gateway import chats, ledger, marks, players, ratings, stats
from storage.unit_of_work import reading
from tests.integration.helpers import Chat
from tests.integration.test_people_property import HOST, SEATED, STEPS, Evening

_chats = itertools.count(-9_350_000_000_000)
FREE = ("/s 1+30 2-10 3-20", "/s 1-12.5 2+2.5 3", "/s 4+40 1-40", "/pay 2 3 5")
MORE = [
    st.tuples(st.just("free"), st.integers(0, len(FREE) - 1)),
    st.tuples(st.just("pause"), st.none()),
    st.tuples(st.just("reset"), st.none()),
    st.tuples(st.just("burst"), st.integers(5, 30)),  # a run of hands: the marks get written
]


class Clock:
    """The ledger's clock: ten seconds a record (the two-minute rule still asks), and a pause
    of play (seven hours: a new sitting) when told."""

    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 19, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        self.now += timedelta(seconds=10)
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    found = Clock()
    monkeypatch.setattr(ledger, "utcnow", found)
    return found


class Night(Evening):
    """`Evening`'s steps, and free rounds, pauses and new seasons."""

    clock: Clock

    def step(self, kind: str, arg: object) -> None:
        if kind == "free" and isinstance(arg, int):
            if self.game != "free":
                self.game = "free"
                self.say(HOST, "/new free 斗地主 confirm")
            self.say(HOST, FREE[arg])
            self.last = None
        elif kind == "burst" and isinstance(arg, int):
            for n in range(arg):
                if self.game == "mahjong":
                    self.say(HOST, f"/hu {n % 4 + 1} zimo" if n % 3 else f"/hu {n % 4 + 1} pao 3")
                elif self.game == "free":
                    self.say(HOST, FREE[n % len(FREE)])
            self.last = None
        elif kind == "pause":
            self.clock.now += timedelta(hours=7)
            self.last = None  # too long ago to be asked about again
        elif kind == "reset":
            asked = self.say(HOST, "/reset")
            if isinstance(asked, ResetAsk):
                self.press(Reset(confirm=True, season_id=asked.season_id))
            self.last = None  # a new season: nothing to repeat
        else:
            super().step(kind, arg)


def play(engine: Engine, clock: Clock, chat_id: int, steps: list[tuple[str, object]]) -> None:
    chat = Chat(engine, chat_id, admins=(HOST,))
    chat.say(HOST, "/set rating on")
    night = Night(chat)
    night.clock = clock
    chat.seat("mahjong", *SEATED)
    for kind, arg in steps:
        night.step(kind, arg)


def kept_mates(db: Connection, season_ids: list[int], pids: list[int]) -> dict[int, Counter[int]]:
    return {pid: Counter(stats.mates(db, season_ids, pid)) for pid in pids}


def counted_mates(found: dict[int, tally.SeasonTally], pids: list[int]) -> dict[int, Counter[int]]:
    out: dict[int, Counter[int]] = {pid: Counter() for pid in pids}
    for season in found.values():
        for (a, b), n in season.mates.items():
            out.setdefault(a, Counter())[b] += n
    return {pid: +out[pid] for pid in pids}


def compare_stats(db: Connection, chat_id: int) -> None:
    kept_seasons = chats.seasons_with_hands(db, chat_id)
    assert kept_seasons == chats.seasons_counted(db, chat_id)
    ids = [s.id for s, _ in kept_seasons]
    found = tally.seasons(db, ids)
    for season_id in ids:
        kept, mine = stats.season_stats(db, season_id), found[season_id]
        assert kept.counts == mine.counts
        assert {k: Counter(dict(v)) for k, v in kept.wins.items()} == mine.wins
        assert {k: v for k, v in kept.pairs.items() if v} == {
            k: v for k, v in mine.pairs.items() if v
        }
        assert {u: list(n) for u, n in kept.hands.items() if any(n)} == {
            u: n for u, n in mine.hands.items() if any(n)
        }
    pids = [p.id for p in players.players_of_chat(db, chat_id)]
    assert kept_mates(db, ids, pids) == counted_mates(found, pids)


def compare_chart(db: Connection, season_id: int) -> None:
    """Every point drawn from the kept marks is the balances after as many live records."""
    counts = marks.live_counts(db, season_id)
    from_marks = insight._from_marks(db, season_id, counts)
    wanted = {unit: [at for at, _ in points] for unit, points in from_marks.items()}
    streamed = insight.balances_after(db, season_id, wanted)
    for unit, points in from_marks.items():
        assert [(at, _nonzero(b)) for at, b in points] == [
            (at, _nonzero(b)) for at, b in streamed[unit]
        ]


def _nonzero(balances: Any) -> dict[int, Fraction]:
    return {pid: Fraction(v) for pid, v in balances.items() if v}


def compare_rating(db: Connection, chat_id: int) -> None:
    computed = rating.sittings(db, chat_id)
    for unit in ratings.units(db, chat_id):
        kept = ratings.sittings_from(db, chat_id, unit, 0)
        mine = computed.get(unit, [])
        assert [
            (
                r.first_seq,
                r.table_id,
                r.hands,
                {int(p): (Fraction(n), int(h)) for p, (n, h) in r.nets.items()},
                {int(p): tuple(v) for p, v in r.ratings.items()},
                _naive(r.first_at),
                _naive(r.last_at),
            )
            for r in kept
        ] == [
            (
                s.first_seq,
                s.table_id,
                s.hands,
                {p: (Fraction(n), s.played[p]) for p, n in s.nets.items() if s.played[p]},
                s.ratings,
                _naive(s.first_at),
                _naive(s.last_at),
            )
            for s in mine
        ]
    assert set(computed) <= set(ratings.units(db, chat_id))


def _naive(moment: datetime) -> datetime:
    return moment.astimezone(UTC).replace(tzinfo=None) if moment.tzinfo else moment


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    steps=st.lists(st.one_of(*STEPS, *MORE), min_size=1, max_size=40),
    moved=st.lists(st.one_of(*STEPS, *MORE), max_size=12) | st.none(),
)
def test_reads_from_the_ledger_equal_the_kept_figures(
    engine: Engine,
    clock: Clock,
    steps: list[tuple[str, object]],
    moved: list[tuple[str, object]] | None,
) -> None:
    chat_id = next(_chats)
    play(engine, clock, chat_id, steps)
    if moved is not None:  # the group became a supergroup that had records of its own
        new_id = next(_chats)
        play(engine, clock, new_id, moved)
        Chat(engine, new_id).service.move_chat(chat_id, new_id)
        chat_id = new_id
    with reading(engine) as db:
        compare_stats(db, chat_id)
        for season, _ in chats.seasons_counted(db, chat_id):
            compare_chart(db, season.id)
        compare_rating(db, chat_id)


def test_the_comparison_sees_a_difference(engine: Engine, clock: Clock) -> None:
    """A kept counter changed behind the views' back is seen (the comparison can fail)."""
    chat_id = next(_chats)
    play(engine, clock, chat_id, [("hu", (1, 0)), ("hu", (2, 3))])
    with engine.begin() as db:
        db.exec_driver_sql("UPDATE stat_player SET wins = wins + 1")
    with reading(engine) as db, pytest.raises(AssertionError):
        compare_stats(db, chat_id)
