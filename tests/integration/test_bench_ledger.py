"""The benchmark's long ledgers (`bench.ledger`: bulk copies of recorded hands) are ledgers the
service could have written: the balances are the live transfers' sums, /stats counts every copy
(each count is the template's times the copies), and /chart ends on the balances."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from bench import ledger
from service import insight, tally
from storage.gateway import chats
from storage.unit_of_work import reading
from tests.integration.test_chart_ledger import chart, drawn_as_oracle, play


def test_a_replicated_ledger_counts_every_copy(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(insight, "CHART_POINTS", 7)
    steps = [(0, 0), (1, 0), (0, 1), (2, 0), (0, 4), (0, 5), (1, 2), (0, 3), (0, 6), (2, 1)]
    chat = play(sqlite_engine, steps)  # undone hands and transfers, drawn hands, three units
    with reading(sqlite_engine) as db:
        season = chats.current_season(db, chat.chat_id)
        assert season is not None
        once = tally.season(db, season.id)
    hands = ledger.replicate(sqlite_engine, chat.chat_id, 7)
    assert hands == 7 * sum(live + undone for live, undone in once.hands.values())
    with reading(sqlite_engine) as db:
        seven = tally.season(db, season.id)
    assert seven.hands == {unit: [7 * n for n in counts] for unit, counts in once.hands.items()}
    assert seven.counts == {
        key: {name: 7 * n for name, n in counts.items()} for key, counts in once.counts.items()
    }
    assert seven.mates == {pair: 7 * n for pair, n in once.mates.items()}
    drawn_as_oracle(sqlite_engine, chat.chat_id)
    for unit, series in chart(sqlite_engine, chat.chat_id).items():
        assert {line.name: line.values[-1] for line in series.lines} == chat.balances(unit)
