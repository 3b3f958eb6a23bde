"""Revision 0013 fills the balance marks of existing seasons from their ledger: on a database
with data (two seasons, both games, free rounds, transfers, undone hands, rounds and transfers,
the last record and older ones), the marks it writes are the ones written as the records were
appended, and /chart (drawn from them) answers the same before and after. The revision has its
own copy of the fill and of `MARK_EVERY` (20): the play records enough events for several
marks in each season."""

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
from tests.integration.helpers import Chat
from tests.reliability.test_migrations import empty_url  # noqa: F401  (the fixture)
from tests.reliability.test_stats_migration import CHAT_ID, P4, down_and_up

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


def play(engine: Engine) -> None:
    """Sixty events in season 1 (mahjong, 510K, a free game; kongs, undos, transfers), then
    twenty-four in season 2: a mark every twenty holds each unit."""
    chat = Chat(engine, CHAT_ID, admins=("老王",))
    for _ in range(3):
        chat.seat("mahjong", *P4)
        for line in ("/hu 老王 zimo qys pph", "/gang Li an", "/hu 2 pao 3", "/hu Chen zimo"):
            chat.say("Li", line)
        for line in ("/undo", "/hu 老王 pao Li pph feng Zhang", "/liuju", "/pay Chen Li 15"):
            chat.say("Li", line)
        chat.seat("510k", *P4)
        for line in ("/r 1=25 2=35 3=20 4=0/20 out 2 1 3", "/r 1=50 2=30 3=10 4=0/10 out 1 3"):
            chat.say("Li", line)
        chat.say("Li", "/undo")
        chat.say("Li", "/pay Chen Li 15")
        chat.seat("free 斗地主", "老王", "Li", "Zhang")
        for line in ("/s 老王+30 Li-10 Zhang", "/s Li+2.5 老王-2.5", "/s Zhang+12 Li", "/undo"):
            chat.say("Li", line)
        for line in ("/pay Zhang 老王 4.5", "/s 老王+30 Zhang-30", "/pay Li Zhang 1", "/undo"):
            chat.say("Li", line)
    chat.say("老王", "/reset confirm")
    for _ in range(2):
        chat.seat("free poker", "A", "B")
        chat.say("A", "/s A+7 B")
        chat.seat("510k3 marathon", "A", "B", "C")
        for _ in range(9):
            chat.say("A", "/r A=50 B=30 C=20 out A B")
        chat.seat("mahjong", *P4)
        chat.say("Li", "/hu Li zimo")
        chat.say("Li", "/pay Li 老王 8")


def test_0013_fills_the_marks_the_records_wrote(
    empty_url: str,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert marks.MARK_EVERY == 20  # as in the revision
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
