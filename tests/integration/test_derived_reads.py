"""The views derived from the ledger, computed when asked, on random evenings (mahjong hands and
kongs, 510K marathons, free rounds, transfers, undos, substitutions, renames, merges, pauses of
play, new seasons, and a group that became a supergroup whose records join the new chat): /stats'
counters, /seasons' hand counts and /me's mates equal the live hands' tallies as a plain reading
of the ledger gives them, /chart every drawn point the balances after as many live records, and
/rating every ordinal that openskill gives the sittings written out from the rules.

Until revision 0022 these figures were kept on the write path; this test compared them with
the kept ones before those were dropped (commit "Derived reads computed from the ledger, checked
against the kept figures")."""

from __future__ import annotations

import itertools
import json
from collections import Counter
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openskill.models import PlackettLuce
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from scoring.games import EventKind, Game
from scoring.hand_stats import hand_stats
from service import rating, tally
from service.names import told_apart
from service.replies import RatingView, ResetAsk
from service.requests import Reset
from storage.gateway import chats, ledger, players
from storage.gateway import ledger as book
from storage.unit_of_work import reading
from tests.integration.helpers import Chat, utc
from tests.integration.test_chart_ledger import drawn_as_oracle
from tests.integration.test_people_property import HOST, SEATED, STEPS, Evening
from tests.integration.test_rating import Clock
from tests.integration.test_stats_counted import oracle

_chats = itertools.count(-9_350_000_000_000)
FREE = ("/s 1+30 2-10 3-20", "/s 1-12.5 2+2.5 3", "/s 4+40 1-40", "/pay 2 3 5")
MORE = [
    st.tuples(st.just("free"), st.integers(0, len(FREE) - 1)),
    st.tuples(st.just("pause"), st.none()),
    st.tuples(st.just("reset"), st.none()),
    st.tuples(st.just("burst"), st.integers(5, 30)),  # a run of hands: the marks get written
]


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    """Ten seconds a record (the two-minute rule still asks); a pause of play when told."""
    found = Clock(step=timedelta(seconds=10))
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


def compare_stats(db: Connection, chat_id: int) -> None:
    """Each season's /stats counters, hand counts and mates, counted when asked, are the sums
    of its live hands' tallies as `oracle` reads the ledger."""
    mates: Counter[tuple[int, int]] = Counter()
    for season, live in chats.seasons_with_hands(db, chat_id):
        counts, wins, pairs, hands = oracle(db, season.id)
        mine = tally.season(db, season.id)
        assert (
            +Counter(
                {(u, p, name): n for (u, p), c in mine.counts.items() for name, n in c.items()}
            )
            == counts
        )
        assert +Counter({(*key, v): t for key, vs in mine.wins.items() for v, t in vs.items()}) == (
            wins
        )
        assert {k: v for k, v in mine.pairs.items() if v} == {k: v for k, v in pairs.items() if v}
        assert (
            +Counter(
                {(u, state): n[i] for u, n in mine.hands.items() for i, state in enumerate(STATES)}
            )
            == hands
        )
        assert live == sum(n for (_, state), n in hands.items() if state == "live")
        for hand in book.hands(db, season.id):
            if hand.kind == EventKind.HAND and hand.undone_by is None:
                people = {pid for pid in hand.data.get("seats") or () if pid}
                for t in book.transfers_of(db, [hand.id]).get(hand.id, []):
                    people |= {pid for pid in (t.payer_id, t.payee_id) if pid is not None}
                mates.update((a, b) for a in people for b in people if a != b)
    counted = Counter[tuple[int, int]]()
    for found in tally.seasons(
        db, [s.id for s, _ in chats.seasons_with_hands(db, chat_id)]
    ).values():
        counted.update(found.mates)
    assert +counted == mates


STATES = ("live", "undone")
HANDS = text(
    "SELECT e.id, e.seq, e.game, e.data, e.table_id, e.created_at, e.undone_by, t.payer_id,"
    " t.payee_id, t.amount FROM event e LEFT JOIN transfer t ON t.event_id = e.id"
    " WHERE e.chat_id = :chat AND e.kind = 'hand' ORDER BY e.seq, t.id"
)


def rating_oracle(db: Connection, chat_id: int) -> dict[str, dict[int, float]]:
    """By game, every rated player's ordinal, written out from the rules: a table's hands until
    play pauses six hours (an undone hand is play, not a result), placed by live nets, each
    sitting one openskill update."""
    hands: dict[int, list[Any]] = {}
    for event_id, _seq, game, data, table_id, at, undone, payer, payee, amount in db.execute(
        HANDS, {"chat": chat_id}
    ):
        data = json.loads(data) if isinstance(data, str) else data
        unit = data["unit"] if game == "free" else Game(game).unit.value
        hand = hands.setdefault(event_id, [unit, table_id, utc(at), undone is None, {}])
        for pid in data.get("seats") or ():
            hand[4].setdefault(pid, Fraction(0))
        if amount is not None:
            for pid, sign in ((payer, -1), (payee, 1)):
                if pid is not None:
                    hand[4][pid] = hand[4].get(pid, Fraction(0)) + sign * Fraction(amount)
    sittings: dict[str, list[dict[int, Fraction]]] = {}
    last: dict[tuple[str, int], tuple[datetime, dict[int, Fraction]]] = {}
    for unit, table_id, at, live, nets in hands.values():
        key = (unit, table_id)
        if key not in last or at - last[key][0] > timedelta(hours=6):
            last[key] = (at, {})
            sittings.setdefault(unit, []).append(last[key][1])
        last[key] = (max(at, last[key][0]), last[key][1])
        if live:
            for pid, net in nets.items():
                last[key][1][pid] = last[key][1].get(pid, Fraction(0)) + net
    model = PlackettLuce()
    out: dict[str, dict[int, float]] = {}
    for unit, rows in sittings.items():
        rated: dict[int, Any] = {}
        for nets in rows:
            if len(nets) < 2:
                continue
            order = sorted(nets, key=lambda pid: (-nets[pid], pid))
            ranks = [1 + sum(nets[m] > nets[pid] for m in nets) for pid in order]
            teams = [[rated.get(pid) or model.rating()] for pid in order]
            for pid, [r] in zip(order, model.rate(teams, ranks=ranks), strict=True):
                rated[pid] = r
        out[unit] = {pid: r.ordinal() for pid, r in rated.items()}
    return out


def compare_rating(db: Connection, chat_id: int) -> None:
    view = rating.rating_view(db, chat_id)
    assert isinstance(view, RatingView)
    known = {p.id: p.name for p in players.players_of_chat(db, chat_id)}

    def named(found: dict[int, float]) -> dict[int, str]:  # two of one name rated: apart
        return told_apart((pid, known[pid]) for pid in found)

    expected = {
        unit: sorted((named(found)[pid], round(o, 9)) for pid, o in found.items())
        for unit, found in rating_oracle(db, chat_id).items()
        if found
    }
    assert {
        game.unit: sorted((line.name, round(line.ordinal, 9)) for line in game.lines)
        for game in view.games
    } == expected


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
        compare_rating(db, chat_id)
    drawn_as_oracle(engine, chat_id)


def test_the_comparisons_see_a_wrong_view(
    engine: Engine, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The views broken on purpose (a self-draw counted as no win; places reversed): seen."""
    chat_id = next(_chats)
    play(engine, clock, chat_id, [("hu", (1, 0)), ("hu", (2, 3)), ("pause", None), ("hu", (3, 0))])
    with reading(engine) as db:
        compare_stats(db, chat_id)
        compare_rating(db, chat_id)

    def no_self_draws(game: str, data: Any, payments: Any, counts: Any = None) -> Any:
        found = hand_stats(game, data, payments, counts)
        for each in found.counts.values():
            each["self_draws"] = 0
        return found

    monkeypatch.setattr(tally, "hand_stats", no_self_draws)
    monkeypatch.setattr(rating, "places", lambda nets: [(p, 1) for p in sorted(nets)])
    with reading(engine) as db:
        with pytest.raises(AssertionError):
            compare_stats(db, chat_id)
        with pytest.raises(AssertionError):
            compare_rating(db, chat_id)
