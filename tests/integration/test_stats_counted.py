"""/stats' counters, counted when asked (`service.tally`), are the sum of the live hands' tallies:
whatever is recorded and undone, in any order (the last record, or an older hand by its number
with its kongs), they equal what `scoring.hand_stats` gives for the ledger as the models read it
(written out here). Free rounds count in their game's unit; transfers (/pay) count nowhere."""

from __future__ import annotations

import contextlib
import itertools
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from scoring.games import EventKind
from scoring.hand_stats import COUNTERS, Payment, hand_stats
from service import tally
from service.errors import ServiceError
from storage.gateway import chats
from storage.gateway import ledger as book
from storage.unit_of_work import reading
from tests.integration.helpers import Chat

P4 = ("老王", "Li", "Zhang", "Chen")
MAHJONG = (
    "/hu 老王 zimo qys pph",
    "/hu 2 pao 3",
    "/gang Li an",
    "/hu Li gangkai",
    "/hu 老王 pao Li pph feng Zhang",
    "/hu Li pao Chen; Zhang pao Chen qys",
    "/hu 3 qianggang 4",
    "/liuju",
    "/undo",
    "/pay Li 老王 5",
    "/gang Zhang ming Chen",
    "/undo 1",  # an older hand: its kongs go with it, the kept stats lose exactly that hand
    "/undo 3",
    "/undo confirm",
)
K510 = (
    "/r 1=25 2=35 3=20 4=0/20 out 2 1 3",
    "/r 1=50 2=30 3=10 4=0/10 out 1 3",
    "/undo",
    "/pay Chen Zhang 10",
    "/undo 1",
)
FREE = (
    "/s 老王+30 Li-10 Zhang",
    "/s Li+2.5 老王-2.5",
    "/s Zhang+1 Li+1 Chen-1 老王",
    "/pay Chen Li 7.25",
    "/undo",
    "/undo 2",  # a round or a transfer: both take numbers
)
_chats = itertools.count(-4_100_000, -1)


def oracle(
    db: Any, season_id: int
) -> tuple[Counter[Any], Counter[Any], Counter[Any], Counter[Any]]:
    """Counters, wins, pairs and hand counts summed over the ledger's hands."""
    counts: Counter[Any] = Counter()
    wins: Counter[Any] = Counter()
    pairs: Counter[Any] = Counter()
    hands: Counter[Any] = Counter()
    events = [e for e in book.hands(db, season_id) if e.kind == EventKind.HAND]
    by_event = book.transfers_of(db, [e.id for e in events])
    for e in events:
        payments = [
            Payment(t.payer_id, t.payee_id, t.amount, t.reason) for t in by_event.get(e.id, [])
        ]
        tally = hand_stats(e.game, e.data, payments)
        live = e.undone_by is None
        hands[(tally.unit, "live" if live else "undone")] += 1
        if not live:
            continue
        for pid, added in tally.counts.items():
            for name in COUNTERS:
                counts[(tally.unit, pid, name)] += added[name]
        for pid, value in tally.wins:
            wins[(tally.unit, pid, value)] += 1
        for pair, value in tally.pairs.items():
            pairs[pair] += value
    return +counts, +wins, pairs, +hands


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    mahjong=st.lists(st.sampled_from(MAHJONG), max_size=12),
    k510=st.lists(st.sampled_from(K510), max_size=5),
    free=st.lists(st.sampled_from(FREE), max_size=8),
    poker=st.lists(st.sampled_from(FREE), max_size=4),
)
def test_counted_stats_are_the_ledger_s(
    engine: Engine, mahjong: list[str], k510: list[str], free: list[str], poker: list[str]
) -> None:
    chat_id = next(_chats)
    chat = Chat(engine, chat_id)
    tables = (("mahjong", mahjong), ("510k", k510), ("free 斗地主", free), ("free poker", poker))
    for game, lines in tables:
        chat.seat(game, *P4)
        for line in lines:
            with contextlib.suppress(ServiceError):  # a kong's hand with no kong…: refused
                chat.say("Li", line)
    with reading(engine) as db:
        season = chats.current_season(db, chat_id)
        assert season is not None
        kept = tally.season(db, season.id)
        counts, wins, pairs, hands = oracle(db, season.id)
    got_counts = +Counter(
        {(unit, pid, name): n for (unit, pid), c in kept.counts.items() for name, n in c.items()}
    )
    assert got_counts == counts
    got_wins = +Counter({(*key, v): t for key, vs in kept.wins.items() for v, t in vs.items()})
    assert got_wins == wins
    assert {k: v for k, v in kept.pairs.items() if v} == {k: v for k, v in pairs.items() if v}
    got_hands: Counter[Any] = Counter()
    for unit, (live, undone) in kept.hands.items():
        got_hands[(unit, "live")], got_hands[(unit, "undone")] = live, undone
    assert +got_hands == hands
