"""Random guest nights (issue 40, point 5): free rounds and transfers among a few names typed
to the bot as a guest, each update delivered one to three times. Whatever the order, the
chat's standings are every distinct update counted once (a round the same as the record
before it is asked about, not counted: the two-minute rule; one of only zeros is refused), and
they add up to zero."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from bot.chat.guest import guest_request
from service.context import Actor, Ctx
from service.core import Service
from service.errors import ServiceError
from service.replies import Recorded, RepeatAsk, StandingsView
from service.requests import Standings

NAMES = ("老王", "小李", "阿张", "老陈", "小周")
_chats = itertools.count(-9_450_000_000_000, -1)
_updates = itertools.count(940_000_000)

ROUND = st.tuples(
    st.just("s"),
    st.lists(st.sampled_from(NAMES), min_size=2, max_size=4, unique=True),
    st.lists(st.integers(-50, 50), min_size=3, max_size=3),
)
PAY = st.tuples(
    st.just("pay"),
    st.lists(st.sampled_from(NAMES), min_size=2, max_size=2, unique=True),
    st.lists(st.integers(1, 20), min_size=1, max_size=1),
)
STEP = st.tuples(st.one_of(ROUND, PAY), st.integers(1, 3))  # the update and its deliveries


def line_and_nets(
    kind: str, names: list[str], amounts: list[int]
) -> tuple[str, dict[str, Fraction]]:
    """The guest line and what it does to each player."""
    if kind == "pay":
        (amount,) = amounts
        return f"@jifen_bot /pay {names[0]} {names[1]} {amount}", {
            names[0]: Fraction(-amount),
            names[1]: Fraction(amount),
        }
    nets = {name: Fraction(a) for name, a in zip(names[:-1], amounts, strict=False)}
    nets[names[-1]] = -sum(nets.values(), Fraction(0))  # the last takes the balance
    words = [f"{n}{'+' if a >= 0 else ''}{a}" for n, a in list(nets.items())[:-1]]
    return "@jifen_bot " + " ".join([*words, names[-1]]), nets


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEP, min_size=1, max_size=10))
def test_every_guest_update_counts_once(
    engine: Engine, steps: list[tuple[tuple[str, list[str], list[int]], int]]
) -> None:
    service, chat = Service(engine), next(_chats)
    expected: dict[str, Fraction] = {}
    last: dict[str, Fraction] | None = None
    for (kind, names, amounts), deliveries in steps:
        line, nets = line_and_nets(kind, names, amounts)
        request, text = guest_request(line, "jifen_bot")
        ctx = Ctx(chat, Actor(7, "老王", None, "zh"), update_id=next(_updates), text=text)
        if not any(nets.values()):  # nothing to record: refused, nothing kept (not the table)
            with pytest.raises(ServiceError):
                service.execute(ctx, request)
            continue
        replies = [service.execute(ctx, request) for _ in range(deliveries)]
        first = replies[0]
        if isinstance(first, RepeatAsk):  # the same as the record before: asked, not counted
            assert {k: v for k, v in nets.items() if v} == last
            continue
        assert isinstance(first, Recorded) and not first.repeated
        assert all(not isinstance(r, Recorded) or r.repeated for r in replies[1:])
        for name, amount in nets.items():
            expected[name] = expected.get(name, Fraction(0)) + amount
        last = {k: v for k, v in nets.items() if v}
    try:
        view = service.execute(Ctx(chat, Actor(None, "viewer")), Standings())
    except ServiceError:  # nothing recorded in the chat at all
        assert last is None
        return
    assert isinstance(view, StandingsView)
    shown = {name: amount for _unit, rows in view.sections for name, amount in rows}
    assert {k: v for k, v in shown.items() if v} == {k: v for k, v in expected.items() if v}
    assert sum(shown.values(), Fraction(0)) == 0
