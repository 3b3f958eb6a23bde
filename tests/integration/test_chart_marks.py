"""/chart of a long season is drawn from the balance marks: whatever is recorded and undone, at
three tables of three units in turn (hands, drawn hands, transfers, the last record undone or an
older one by its number), every point drawn from the marks equals the balances after that many
live records that one pass over the whole ledger gives, the last point is the balances now, and
the marks written as records were appended are the ones the ledger implies
(`tests.integration.marks_reference`)."""

from __future__ import annotations

import contextlib
import itertools
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from bot.commands.parsing import parse
from service import insight
from service.context import Ctx
from service.errors import ServiceError
from service.replies import ChartSeries, RepeatAsk
from service.requests import Again, Chart
from storage.gateway import chats, marks
from storage.unit_of_work import reading
from tests.integration.helpers import Chat
from tests.integration.marks_reference import implied_marks

P4 = ("老王", "Li", "Zhang", "Chen")
GAMES = ("mahjong", "510k", "free 斗地主")  # a table in each of three forum topics
LINES = (
    (
        "/hu 老王 zimo qys pph",
        "/hu 2 pao 3",
        "/hu Li pao Chen; Zhang pao Chen qys",
        "/liuju",  # a hand without payments counts as played
        "/pay Li 老王 2.5",
        "/undo",
        "/undo 1",
        "/undo 3",
    ),
    (
        "/r 1=25 2=35 3=20 4=0/20 out 2 1 3",
        "/r 1=50 2=30 3=10 4=0/10 out 1 3",
        "/pay Chen Zhang 10",
        "/undo",
        "/undo 2",
    ),
    ("/s 老王+30 Li-10 Zhang", "/s Li+2.5 老王-2.5", "/pay Chen Li 7.25", "/undo", "/undo 1"),
)
_chats = itertools.count(-4_200_000, -1)
_updates = itertools.count(10**9)


class Forum(Chat):
    """A chat whose tables are in forum topics: `say` in a topic."""

    def in_topic(self, thread: int, text: str) -> None:
        ctx = Ctx(
            chat_id=self.chat_id,
            actor=self.actor("Li"),
            thread_id=thread,
            is_admin=True,
            update_id=next(_updates),
            text=text,
        )
        with contextlib.suppress(ServiceError):  # /undo 3 with no hand #3…: refused
            reply = self.service.execute(ctx, parse(text))
            if isinstance(reply, RepeatAsk):  # the same hand again: meant (Record again)
                again = replace(ctx, update_id=next(_updates))
                self.service.execute(again, Again(reply.view.event_id))


def play(engine: Engine, steps: list[tuple[int, int]]) -> Forum:
    chat = Forum(engine, next(_chats), admins=("Li",))
    for thread, game in enumerate(GAMES):
        chat.in_topic(thread, f"/new {game} confirm")
        chat.in_topic(thread, "/seats " + " ".join(P4))
    for thread, line in steps:
        chat.in_topic(thread, LINES[thread][line % len(LINES[thread])])
    return chat


def season_id(db: Connection, chat_id: int) -> int:
    season = chats.current_season(db, chat_id)
    assert season is not None
    return season.id


def chart(
    engine: Engine, chat_id: int, monkeypatch: pytest.MonkeyPatch, *, exact: bool
) -> dict[str, ChartSeries]:
    """By unit: every record's balances (`exact`: one pass over the ledger), or every mark's."""
    monkeypatch.setattr(insight, "EXACT_UP_TO", 10**9 if exact else -1)
    with reading(engine) as db:
        data = insight.chart_data(db, chat_id, Chart())
    assert all(s.at[0] == 0 for s in data.series)
    return {s.unit: s for s in data.series}


def stored_marks(engine: Engine, chat_id: int) -> list[tuple[Any, ...]]:
    with reading(engine) as db:
        return sorted(
            tuple(row)
            for row in db.execute(
                text(
                    "SELECT m.season_id, m.seq, m.unit, m.player_id, m.amount, m.played"
                    " FROM balance_mark m JOIN season s ON s.id = m.season_id"
                    " WHERE s.chat_id = :c"
                ),
                {"c": chat_id},
            )
        )


def refilled(engine: Engine, chat_id: int) -> list[tuple[Any, ...]]:
    """The chat's marks as its ledger implies them (`tests.integration.marks_reference`)."""
    with reading(engine) as db:
        ids = list(db.scalars(text("SELECT id FROM season WHERE chat_id = :c"), {"c": chat_id}))
        return sorted(row for sid in ids for row in implied_marks(db, sid))


def live_records(engine: Engine, chat_id: int) -> dict[str, int]:
    """Each unit's live hands and transfers, counted in the ledger."""
    counts: dict[str, int] = {}
    with reading(engine) as db:
        for game, unit, n in db.execute(
            text(
                "SELECT e.game, (SELECT min(t.unit) FROM transfer t WHERE t.event_id = e.id),"
                " count(*) FROM event e WHERE e.season_id = :s AND e.kind IN ('hand', 'pay')"
                " AND e.undone_by IS NULL GROUP BY 1, 2"
            ),
            {"s": season_id(db, chat_id)},
        ):
            key = unit or marks.unit_of(game)
            counts[key] = counts.get(key, 0) + n
    return counts


def by_name(series: ChartSeries) -> dict[str, tuple[Fraction, ...]]:
    return {line.name: line.values for line in series.lines}


@pytest.fixture
def often(monkeypatch: pytest.MonkeyPatch) -> None:
    """A mark every third event, and a chart drawn from the marks whatever the season's length,
    each kept (no thinning out)."""
    monkeypatch.setattr(marks, "MARK_EVERY", 3)
    monkeypatch.setattr(insight, "CHART_POINTS", 10**6)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 7)), max_size=40))
def test_the_marks_give_the_balances_of_the_full_pass(
    engine: Engine, often: None, monkeypatch: pytest.MonkeyPatch, steps: list[tuple[int, int]]
) -> None:
    chat = play(engine, steps)
    every = chart(engine, chat.chat_id, monkeypatch, exact=True)
    drawn = chart(engine, chat.chat_id, monkeypatch, exact=False)
    assert drawn.keys() == every.keys()
    assert {unit: s.hands for unit, s in every.items()} == live_records(engine, chat.chat_id)
    for unit, series in drawn.items():
        full = every[unit]
        assert full.at == tuple(range(full.hands + 1))  # every record
        assert series.at[-1] == full.hands and list(series.at) == sorted(set(series.at))
        exact = by_name(full)
        assert by_name(series) == {
            name: tuple(values[x] for x in series.at) for name, values in exact.items()
        }
        assert {n: v[-1] for n, v in exact.items()} == chat.balances(unit)
    assert stored_marks(engine, chat.chat_id) == refilled(engine, chat.chat_id)


def test_an_undo_after_a_mark_is_taken_out_of_it(
    engine: Engine, often: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Marks written while hands #1 and #3 were live, then both undone: the marks drawn no
    longer count them (neither their points nor their places). Hand #3 is event 3, the mark
    written with it is before it; the undo of #3 is event 9, the mark written with it too."""
    steps = [(0, 0), (0, 1)] * 3 + [(0, 0), (0, 6), (0, 7), (0, 0)]  # /undo 1, /undo 3, a hand
    chat = play(engine, steps)
    with reading(engine) as db:
        sid = season_id(db, chat.chat_id)
        undone = marks.undone_after(db, sid)
    assert [(seq, unit, sum(net.values())) for seq, _, unit, net in undone] == [
        (1, "mahjong", 0),
        (3, "mahjong", 0),
    ]
    assert stored_marks(engine, chat.chat_id)  # written while #1 was live
    drawn = chart(engine, chat.chat_id, monkeypatch, exact=False)["mahjong"]
    full = chart(engine, chat.chat_id, monkeypatch, exact=True)["mahjong"]
    # marks before events 3, 6 and 9: 2, 5 and 6 records then, 1, 3 and 5 of them live now
    assert full.at == (0, 1, 2, 3, 4, 5, 6) and drawn.at == (0, 1, 3, 5, 6)
    assert by_name(drawn) == {n: tuple(v[x] for x in drawn.at) for n, v in by_name(full).items()}


def test_a_chat_move_keeps_the_old_chat_s_marks_and_draws_the_same(
    engine: Engine, often: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old chat's events keep their numbers, so its marks hold; the new chat's events are
    renumbered after them, so theirs go: /chart drawn from what stays equals the full pass."""
    old = play(engine, [(0, 0), (0, 1), (1, 0), (0, 2), (0, 4), (0, 0), (2, 0)])
    new = play(engine, [(0, 1), (2, 0), (0, 5), (0, 0), (0, 0), (1, 1)])
    kept = stored_marks(engine, old.chat_id)
    old.service.move_chat(old.chat_id, new.chat_id)
    assert kept and stored_marks(engine, new.chat_id) == kept
    every = chart(engine, new.chat_id, monkeypatch, exact=True)
    drawn = chart(engine, new.chat_id, monkeypatch, exact=False)
    for unit, series in drawn.items():
        exact = by_name(every[unit])
        assert by_name(series) == {n: tuple(v[x] for x in series.at) for n, v in exact.items()}
