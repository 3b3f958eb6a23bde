"""Free rounds and transfers in the ledger, on SQLite and PostgreSQL: a random evening keeps the
cached balances equal to the sum of the live transfers (undone ones left out), the export agrees,
and /settle squares every unit."""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from bot.commands.parsing import ParseError
from service.errors import ServiceError
from service.replies import ChartData, ExportData, ResetDone, SettleView, StandingsView
from tests.integration.helpers import Chat, live_totals

NAMES = ("Ann", "Bob", "Cat", "Dan", "Eve")
_chats = itertools.count(-9_100_000_000_000)

amount = st.integers(1, 100_000).map(lambda c: Fraction(c, 100))
a_round = st.lists(
    st.tuples(st.sampled_from(NAMES), amount, st.booleans()),
    min_size=1,
    max_size=4,
    unique_by=lambda e: e[0],
)
a_pay = st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES), amount)
step = st.one_of(
    a_round.map(lambda r: ("s", r)), a_pay.map(lambda p: ("pay", p)), st.just(("undo", None))
)


def cents(value: Fraction) -> str:
    return f"{value.numerator / value.denominator:.2f}"


def command(kind: str, arg: Any) -> str:
    """The step as typed: a round names its last player without a number (the balance)."""
    if kind == "pay":
        payer, payee, value = arg
        return f"/pay {payer} {payee} {cents(value)}"
    if kind == "undo":
        return "/undo"
    *scored, (last, _, _) = arg
    words = [f"{name}{'+' if up else '-'}{cents(value)}" for name, value, up in scored]
    return " ".join(["/s", *words, last])


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(step, min_size=1, max_size=15))
def test_balances_are_the_live_transfers_and_settle_squares_them(
    engine: Engine, steps: list[tuple[str, object]]
) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("free 斗地主", *NAMES)
    for kind, arg in steps:
        try:
            chat.say("Ann", command(kind, arg))
        except (ParseError, ServiceError):
            continue  # refused (sum, self-payment…): nothing written
    standings = chat.say("Ann", "/standings")
    assert isinstance(standings, StandingsView)
    balances = {
        (unit, name): value for unit, rows in standings.sections for name, value in rows if value
    }
    export = chat.say("Ann", "/export")
    assert isinstance(export, ExportData)
    assert {k: v for k, v in live_totals(export.rows).items() if v} == balances
    assert sum(balances.values(), Fraction(0)) == 0
    settle = chat.say("Ann", "/settle")
    assert isinstance(settle, SettleView)
    after = dict(balances)
    for unit, plan in settle.sections:
        for payer, payee, value in plan:
            after[(unit, payer)] = after.get((unit, payer), Fraction(0)) + value
            after[(unit, payee)] = after.get((unit, payee), Fraction(0)) - value
    assert all(v == 0 for v in after.values())


def test_chart_and_export_show_free_games_and_transfers_in_their_units(engine: Engine) -> None:
    """/chart: one series per unit (mahjong, then free games by name), a transfer a point of
    its table's unit, undone records left out; /export: every payment with its unit."""
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", "Ann", "Bob", "Cat", "Dan")
    chat.say("Ann", "/hu Ann zimo")
    chat.say("Ann", "/pay Bob Ann 5")
    chat.seat("free 斗地主", "Ann", "Bob", "Cat")
    chat.say("Ann", "/s Ann+30 Bob-10 Cat")
    chat.say("Ann", "/s Bob+1 Cat")
    chat.say("Ann", "/undo")
    chat.say("Ann", "/pay Cat Bob 2.5")
    chat.seat("free poker", "Ann", "Eve")
    chat.say("Ann", "/s Eve+7 Ann")
    chart = chat.say("Ann", "/chart")
    assert isinstance(chart, ChartData)
    assert [s.unit for s in chart.series] == ["mahjong", "free:poker", "free:斗地主"]
    standings = chat.say("Ann", "/standings")
    assert isinstance(standings, StandingsView)
    for series, (unit, rows) in zip(chart.series, standings.sections, strict=True):
        assert series.unit == unit
        assert series.hands == {"mahjong": 2, "free:斗地主": 2, "free:poker": 1}[unit]
        final = {line.name: line.values[-1] for line in series.lines}
        assert {n: v for n, v in final.items() if v} == {n: v for n, v in rows if v}
    export = chat.say("Ann", "/export")
    assert isinstance(export, ExportData)
    rows = list(export.rows)
    assert {(unit, reason) for _at, _hand, _game, unit, _pa, _pe, _a, reason, *_rest in rows} == {
        ("mahjong", "win"),
        ("mahjong", "pay"),
        ("free:斗地主", "score"),
        ("free:斗地主", "pay"),
        ("free:poker", "score"),
    }
    assert sum(row[9] for row in rows) == 2  # the undone round's two payments
    live = {k: v for k, v in live_totals(rows).items() if v}
    assert live == {(u, n): v for u, ns in standings.sections for n, v in ns if v}


def test_a_reset_names_the_last_record_a_transfer_included(engine: Engine) -> None:
    """Transfers take numbers like hands: the reset's "hands up to #n" (the table's) counts
    them."""
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.seat("free", "Ann", "Bob")
    chat.say("Ann", "/s Ann+1 Bob")
    chat.say("Ann", "/pay Bob Ann 1")
    done = chat.say("Ann", "/reset confirm")
    assert isinstance(done, ResetDone)
    assert done.last_hand == 2
