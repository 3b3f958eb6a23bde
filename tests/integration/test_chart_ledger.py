"""/chart is computed from the ledger when asked: whatever is recorded and undone, at three tables
of three units in turn (hands, drawn hands, transfers, the last record undone or an older one by
its number), in one chat or in a group that became a supergroup, every point drawn is the
balances after that many live records as a plain reading of the ledger gives them (written out
here, independently of the product), and the last point is the balances now."""

from __future__ import annotations

import contextlib
import itertools
from collections import defaultdict
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from bot.commands.parsing import parse
from scoring.games import Game
from service import insight
from service.context import Ctx
from service.errors import ServiceError
from service.replies import ChartSeries, RepeatAsk
from service.requests import Again, Chart
from storage.gateway import chats
from storage.unit_of_work import reading
from tests.integration.helpers import Chat

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


LEDGER = text(
    "SELECT e.id, e.game, t.unit, t.payer_id, t.payee_id, t.amount FROM event e"
    " LEFT JOIN transfer t ON t.event_id = e.id WHERE e.season_id = :season"
    " AND e.kind IN ('hand', 'pay') AND e.undone_by IS NULL ORDER BY e.seq, t.id"
)


def season_id(db: Connection, chat_id: int) -> int:
    season = chats.current_season(db, chat_id)
    assert season is not None
    return season.id


def oracle(engine: Engine, chat_id: int) -> dict[str, list[dict[int, Fraction]]]:
    """By unit, the balances after each live record (0, 1, 2, …), from the ledger's rows."""
    out: dict[str, list[dict[int, Fraction]]] = {}
    records: dict[int, tuple[str, list[tuple[Any, ...]]]] = {}
    with reading(engine) as db:
        for event_id, game, unit, payer, payee, amount in db.execute(
            LEDGER, {"season": season_id(db, chat_id)}
        ):
            found = records.setdefault(event_id, (unit or Game(game).unit.value, []))
            if amount is not None:
                found[1].append((payer, payee, Fraction(amount)))
    running: dict[str, dict[int, Fraction]] = defaultdict(lambda: defaultdict(Fraction))
    for unit, payments in records.values():
        for payer, payee, amount in payments:
            if payer is not None:
                running[unit][payer] -= amount
            if payee is not None:
                running[unit][payee] += amount
        out.setdefault(unit, [{}]).append({p: v for p, v in running[unit].items() if v})
    return out


def chart(engine: Engine, chat_id: int) -> dict[str, ChartSeries]:
    with reading(engine) as db:
        data = insight.chart_data(db, chat_id, Chart())
    assert all(s.at[0] == 0 for s in data.series)
    return {s.unit: s for s in data.series}


def drawn_as_oracle(engine: Engine, chat_id: int) -> None:
    """Every drawn point is the oracle's at that many records, by name; the last is now."""
    expected = oracle(engine, chat_id)
    drawn = chart(engine, chat_id)
    assert drawn.keys() == expected.keys()
    with reading(engine) as db:
        from service.names import told_apart
        from storage.gateway import players

        names = told_apart((p.id, p.name) for p in players.players_of_chat(db, chat_id))
    for unit, series in drawn.items():
        points = expected[unit]
        assert series.at[-1] == len(points) - 1 and list(series.at) == sorted(set(series.at))
        for i, at in enumerate(series.at):  # two players may share a name (a chat move)
            got = sorted((line.name, line.values[i]) for line in series.lines if line.values[i])
            assert got == sorted((names[p], v) for p, v in points[at].items())


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    steps=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 7)), max_size=40),
    points=st.sampled_from([10**6, 3, 2]),
)
def test_every_drawn_point_is_the_ledger_s(
    engine: Engine, monkeypatch: pytest.MonkeyPatch, steps: list[tuple[int, int]], points: int
) -> None:
    monkeypatch.setattr(insight, "CHART_POINTS", points)  # every record, or a few
    chat = play(engine, steps)
    drawn_as_oracle(engine, chat.chat_id)
    if points == 10**6:
        for unit, series in chart(engine, chat.chat_id).items():
            assert series.at == tuple(range(series.hands + 1))
            assert {line.name: line.values[-1] for line in series.lines} == {
                name: amount for name, amount in chat.balances(unit).items()
            }


def test_an_undone_record_is_left_out(engine: Engine) -> None:
    """Hands #1 and #3 undone: the chart counts the four others, in order."""
    steps = [(0, 0), (0, 1)] * 3 + [(0, 6), (0, 7), (0, 0)]  # /undo 1, /undo 3, a hand
    chat = play(engine, steps)
    full = chart(engine, chat.chat_id)["mahjong"]
    assert full.at == (0, 1, 2, 3, 4, 5)
    drawn_as_oracle(engine, chat.chat_id)


def test_a_chat_move_draws_both_chats_records(engine: Engine) -> None:
    old = play(engine, [(0, 0), (0, 1), (1, 0), (0, 2), (0, 4), (0, 0), (2, 0)])
    new = play(engine, [(0, 1), (2, 0), (0, 5), (0, 0), (0, 0), (1, 1)])
    old.service.move_chat(old.chat_id, new.chat_id)
    drawn_as_oracle(engine, new.chat_id)
