"""Revision 0013 fills the balance marks of existing seasons from their ledger: on a database
with data (two seasons, both games, free rounds, transfers, undone hands, rounds and transfers,
the last record and older ones), the marks it writes are the ones written as the records were
appended, and /chart (drawn from them) answers the same before and after."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from service import insight
from service.requests import Chart
from storage.db import make_engine
from storage.gateway import marks
from storage.migrate import upgrade
from storage.unit_of_work import reading
from tests.reliability.test_migrations import empty_url  # noqa: F401  (the fixture)
from tests.reliability.test_stats_migration import CHAT_ID, down_and_up, play

pytestmark = pytest.mark.slow


def stored(engine: Engine) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        return sorted(
            tuple(row)
            for row in conn.execute(
                text("SELECT season_id, seq, unit, player_id, amount, played FROM balance_mark")
            ).fetchall()
        )


def charts(engine: Engine) -> list[Any]:
    with reading(engine) as db:
        return [insight.chart_data(db, CHAT_ID, Chart(season=n)) for n in (1, 2)]


def test_0013_fills_the_marks_the_records_wrote(
    empty_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(marks, "MARK_EVERY", 2)  # the play has some 35 events
    monkeypatch.setattr(insight, "EXACT_UP_TO", -1)  # /chart from the marks
    engine = make_engine(empty_url)
    try:
        upgrade(engine, "head")
        play(engine)
        as_recorded, answers = stored(engine), charts(engine)
        assert {row[0] for row in as_recorded} == {1, 2}  # both seasons
        assert {row[2] for row in as_recorded} >= {"mahjong", "510k", "free:斗地主", "free:poker"}
        assert any(len(series.at) > 2 for data in answers for series in data.series)
        down_and_up(engine, "0012", "balance_mark", (stored, as_recorded), (charts, answers))
    finally:
        engine.dispose()
