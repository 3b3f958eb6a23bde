"""Random evenings with fees (issue 42, point 1): mahjong hands, transfers, 510K-free rounds at
two stakes, fees paid by one and fees split with nobody paying yet (shares that do not divide to
the cent), and undos. Whatever happened, /settle money squares the games and the fees together
to the cent: its transfers add up to zero, and give each player their points times the stake
plus what the fees paid by one owe them, within the cent the rounding allows (exactly, when every
amount is whole cents)."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from service.hand_views import FeeView
from service.replies import MoneyView, Recorded, Undone
from tests.integration.helpers import Chat

P4 = ("Ann", "Bob", "Cat", "Dan")
_chats = itertools.count(-9_421_000_000_000, -1)
AMOUNTS = st.sampled_from(["100", "120", "10", "0.05", "33.33", "7", "250.5"])

STEPS = st.lists(
    st.one_of(
        st.tuples(st.just("hu"), st.integers(0, 3), st.integers(0, 3)),
        st.tuples(st.just("pay"), st.integers(0, 3), st.integers(0, 3), st.integers(1, 9)),
        st.tuples(st.just("paid"), AMOUNTS, st.integers(0, 3), st.sets(st.integers(0, 3))),
        st.tuples(st.just("split"), AMOUNTS, st.sets(st.integers(0, 3))),
        st.tuples(st.just("undo")),
    ),
    min_size=1,
    max_size=14,
)


def _owed(reply: Recorded) -> dict[str, Fraction]:
    """What a record moves between players in money terms, by name (the house left out)."""
    out: dict[str, Fraction] = {}
    for p in reply.view.payments:
        if p.payer is not None and p.payee is not None:
            out[p.payer] = out.get(p.payer, Fraction(0)) - p.amount
            out[p.payee] = out.get(p.payee, Fraction(0)) + p.amount
    return out


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(steps=STEPS, stake=st.sampled_from(["1", "0.5", "0.37"]))
def test_settle_money_squares_games_and_fees_to_the_cent(
    engine: Engine, steps: list[tuple[object, ...]], stake: str
) -> None:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.seat("mahjong", *P4)
    chat.say("Ann", f"/set stake {stake}")
    live: list[tuple[Recorded, bool]] = []  # each live record, and whether it is a fee
    for step in steps:
        kind = step[0]
        reply = None
        if kind == "hu":
            winner, source = int(str(step[1])), int(str(step[2]))
            how = "zimo" if winner == source else f"pao {P4[source]}"
            reply = chat.say("Ann", f"/hu {P4[winner]} {how}")
        elif kind == "pay":
            payer, payee, amount = (int(str(x)) for x in step[1:])
            if payer != payee:
                reply = chat.say("Ann", f"/pay {P4[payer]} {P4[payee]} {amount}")
        elif kind == "paid":
            amount, payer, names = str(step[1]), int(str(step[2])), sorted(step[3])  # type: ignore[call-overload]
            sharers = " ".join(P4[i] for i in names)
            if names == [payer]:
                continue
            reply = chat.say("Bob", f"/fee {amount} 台费 {sharers} paid {P4[payer]}")
        elif kind == "split":
            amount, names = str(step[1]), sorted(step[2])  # type: ignore[call-overload]
            reply = chat.say("Cat", f"/fee {amount} 茶水 {' '.join(P4[i] for i in names)}")
        elif live:
            undone = chat.say("Dan", "/undo")
            assert isinstance(undone, Undone)
            live = [(r, f) for r, f in live if r.view.event_id != undone.view.event_id]
        if reply is not None:
            assert isinstance(reply, Recorded)
            fee = isinstance(reply.view.detail, FeeView)
            if fee:
                assert isinstance(reply.view.detail, FeeView)
                shares = sum((s for _n, s in reply.view.detail.shares), Fraction(0))
                assert shares == reply.view.detail.amount  # to the cent, nothing lost
            live.append((reply, fee))
    exact: dict[str, Fraction] = dict.fromkeys(P4, Fraction(0))
    for reply, fee in live:
        for name, amount in _owed(reply).items():
            exact[name] += amount if fee else amount * Fraction(stake)
    view = chat.say("Ann", "/settle money")
    assert isinstance(view, MoneyView)
    got: dict[str, Fraction] = dict.fromkeys(P4, Fraction(0))
    for payer, payee, amount in view.transfers:
        assert amount > 0 and (amount * 100).denominator == 1  # whole cents
        got[payer] -= amount
        got[payee] += amount
    assert sum(got.values()) == 0
    for name in P4:
        assert abs(got[name] - exact[name]) < Fraction(1, 100), (name, got, exact)
    if all((v * 100).denominator == 1 for v in exact.values()):
        assert got == exact
