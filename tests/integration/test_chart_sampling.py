"""/chart of a long season: balances at evenly spaced hands, the last one always, exact."""

from __future__ import annotations

from fractions import Fraction

import pytest
from sqlalchemy.engine import Engine

from service import insight
from service.requests import Chart
from tests.integration.helpers import Chat
from tests.integration.test_insight import P4, ask


def test_a_long_season_is_sampled_and_ends_on_the_balances(
    engine: Engine, chat_id: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat = Chat(engine, chat_id)
    chat.seat("mahjong", *P4)
    for n in range(11):
        chat.say("Li", "/hu Li zimo" if n % 2 else "/hu 老王 pao Chen")
    chat.say("Li", "/undo")  # the eleventh: 10 live hands
    (full,) = ask(engine, chat_id, insight.chart_data, Chart()).series
    assert full.at == tuple(range(11))
    monkeypatch.setattr(insight, "CHART_POINTS", 4)
    (series,) = ask(engine, chat_id, insight.chart_data, Chart()).series
    assert series.hands == 10 and series.at == (0, 3, 6, 9, 10)
    lines = {line.name: line.values for line in series.lines}
    assert set(lines) == set(P4)
    assert {name: values[-1] for name, values in lines.items()} == chat.balances()
    assert lines["Li"][0] == 0 and all(isinstance(v, Fraction) for v in lines["Li"])
    every = {line.name: line.values for line in full.lines}
    assert lines == {name: tuple(every[name][x] for x in series.at) for name in every}
