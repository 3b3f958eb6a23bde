"""The benchmark's long ledgers (`bench.ledger`: bulk copies of recorded hands) carry the balance
marks the service would have written with the copies: equal to those the copied ledger implies,
so /chart on them measures the marks as the product has them."""

from __future__ import annotations

import pytest
from sqlalchemy.engine import Engine

from bench import ledger
from service import insight
from storage.gateway import marks
from tests.integration.test_chart_marks import P4, chart, play, refilled, stored_marks


def test_replicated_marks_are_the_fill_s(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(marks, "MARK_EVERY", 3)
    monkeypatch.setattr(insight, "CHART_POINTS", 10**6)
    steps = [(0, 0), (1, 0), (0, 1), (2, 0), (0, 4), (0, 5), (1, 2), (0, 3), (0, 6), (2, 1)]
    chat = play(sqlite_engine, steps)  # undone hands and transfers, drawn hands, three units
    hands = ledger.replicate(sqlite_engine, chat.chat_id, 7)
    assert hands > 7 * 5
    written = stored_marks(sqlite_engine, chat.chat_id)
    assert len({row[1] for row in written}) > 20 and {row[2] for row in written} >= {"mahjong"}
    assert written == refilled(sqlite_engine, chat.chat_id)
    every = chart(sqlite_engine, chat.chat_id, monkeypatch, exact=True)
    drawn = chart(sqlite_engine, chat.chat_id, monkeypatch, exact=False)
    for unit, series in drawn.items():
        values = {line.name: line.values for line in every[unit].lines}
        assert {line.name: line.values for line in series.lines} == {
            name: tuple(v[x] for x in series.at) for name, v in values.items()
        }
    assert set(values) <= set(P4)
