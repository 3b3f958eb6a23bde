"""Settle-up squared hand by hand, on SQLite and PostgreSQL: over random 510K evenings (four
and three players, substitutes, undos, transfers, zerosum switched on and off) /settle's
transfers leave every player with what zerosum would have recorded, and /settle money with
that at the stake, in whole cents; the kept pars follow every record and its undo."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from scoring.k510 import score_hand
from scoring.k510_model import Report510k
from service.replies import MoneyView, Recorded, RepeatAsk, SettleView, StakeSet
from service.requests import Again, Answered
from tests.integration.helpers import Chat

#: Names no two of which are one letter apart (a near name is asked about, not seated).
POOL = ("Alice", "Bruno", "Chen", "Dmitri", "Emma", "Farid")
HOST = "Alice"
GUEST = "Bruno"  # who types the result again
_chats = itertools.count(-9_310_000_000_000)


@st.composite
def reports(
    draw: st.DrawFn, players: int
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """A legal hand of `players` seats: (table points, finishing order, points held)."""
    seats = draw(st.permutations(range(players)))
    n = 2 if players == 3 else next(k for k in (2, 3) if (seats[k - 1] + 2) % 4 in seats[: k - 1])
    order = tuple(seats[:n])
    budget = 20  # fives in the deck
    table, held = [0] * players, [0] * players
    for seat in range(players):
        table[seat] = draw(st.integers(0, budget)) * 5
        budget -= table[seat] // 5
        if seat not in order:
            held[seat] = draw(st.integers(0, budget)) * 5
            budget -= held[seat] // 5
    return tuple(table), order, tuple(held)


def seatings(players: int) -> st.SearchStrategy[tuple[str, ...]]:
    return st.permutations(POOL).map(lambda names: tuple(names[:players]))


step = st.one_of(
    st.tuples(st.just("hand"), reports(4)),
    st.tuples(st.just("hand"), reports(3)),
    st.tuples(st.just("seats"), st.integers(0, 1_000)),
    st.tuples(st.just("undo"), st.none()),
    st.tuples(st.just("pay"), st.integers(1, 40)),
    st.tuples(st.just("zerosum"), st.booleans()),
    st.tuples(st.just("new"), st.sampled_from((3, 4))),
    # the last result typed again by another member (the two-minute rule): answered Record
    # again, No, or not at all
    st.tuples(st.just("repeat"), st.sampled_from(("again", "no", "unanswered"))),
)


@dataclass
class Evening:
    """What the ledger should hold: each table's live records, newest last."""

    chat: Chat
    players: int = 4
    seated: tuple[str, ...] = ()
    tables: list[list[tuple[str, dict[str, Fraction]]]] = field(default_factory=lambda: [[]])
    last: tuple[str, dict[str, Fraction]] | None = None  # the table's last record, if live

    def say(self, text: str) -> object:
        return self.chat.say(HOST, text)

    def record(self, text: str, result: dict[str, Fraction]) -> None:
        """A hand or a transfer, unless the table holds the same one live (typed again, it
        would be asked about as a repeat)."""
        if any(text == known for known, _ in self.tables[-1]):
            return
        reply = self.say(text)
        if isinstance(reply, RepeatAsk) and reply.near is not None:  # the same order out,
            # other points (a near repeat): meant as a hand of its own, [Record both]
            reply = self.chat.press(HOST, Answered(reply.near, replace=False))
        assert isinstance(reply, Recorded), reply
        self.tables[-1].append((text, result))
        self.last = (text, result)

    def repeat(self, answer: str) -> None:
        """The table's last record typed again by someone else: asked about; then recorded
        once by Record again (pressed twice), dropped by No or by no answer at all."""
        if self.last is None:  # none, or it was undone (then it would be no repeat)
            return
        text, result = self.last
        asked = self.chat.say(GUEST, text)
        assert isinstance(asked, RepeatAsk), asked
        if answer == "again":
            for _ in range(2):  # pressed twice: recorded once
                recorded = self.chat.press(
                    GUEST, Again(asked.view.event_id), update_id=-asked.view.event_id
                )
                assert isinstance(recorded, Recorded)
            self.tables[-1].append((text, result))

    def open(self, players: int, names: Sequence[str]) -> None:
        self.players, self.seated = players, tuple(names)
        self.say(f"/new {'510k' if players == 4 else '510k3'} confirm")
        self.say("/seats " + " ".join(names))
        self.tables.append([])
        self.last = None

    def hand(self, table: tuple[int, ...], order: tuple[int, ...], held: tuple[int, ...]) -> None:
        names = self.seated
        entries = " ".join(
            f"{names[s]}={t}" + (f"/{held[s]}" if held[s] else "") for s, t in enumerate(table)
        )
        zerosum = score_hand(Report510k(table, order, held), zerosum=True).scores
        text = f"/r {entries} out {' '.join(names[s] for s in order)}"
        self.record(text, dict(zip(names, zerosum, strict=True)))

    def expected(self) -> dict[str, Fraction]:
        """Each player's total of what zerosum would have recorded, over the live hands."""
        out: dict[str, Fraction] = {}
        for _text, record in itertools.chain.from_iterable(self.tables):
            for name, value in record.items():
                out[name] = out.get(name, Fraction(0)) + value
        return out


def nets(plan: Sequence[tuple[str, str, Fraction]]) -> dict[str, Fraction]:
    """What a list of transfers settles for each player (a payer was owing: negative)."""
    out: dict[str, Fraction] = {}
    for payer, payee, amount in plan:
        assert amount > 0
        out[payer] = out.get(payer, Fraction(0)) - amount
        out[payee] = out.get(payee, Fraction(0)) + amount
    return out


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(step, min_size=1, max_size=14), stake=st.integers(1, 999))
def test_settle_squares_each_hand_as_zerosum_would_have(
    engine: Engine, steps: list[tuple[str, object]], stake: int
) -> None:
    evening = Evening(Chat(engine, next(_chats), admins=(HOST,), ask_repeats=True))
    evening.open(4, POOL[:4])
    for kind, arg in steps:
        if kind == "hand" and isinstance(arg, tuple) and len(arg[0]) == evening.players:
            evening.hand(*arg)
        elif kind == "seats" and isinstance(arg, int):  # a substitute (or several)
            names = list(itertools.permutations(POOL, evening.players))
            evening.seated = names[arg % len(names)]
            evening.say("/seats " + " ".join(evening.seated))
            evening.last = None  # its names may have left the table
        elif kind == "undo" and evening.tables[-1]:
            evening.say("/undo")
            evening.tables[-1].pop()
            evening.last = None
        elif kind == "repeat" and isinstance(arg, str):
            evening.repeat(arg)
        elif kind == "pay" and isinstance(arg, int):  # zero-sum: squares as it is
            payer, payee = evening.seated[0], evening.seated[1]
            evening.record(
                f"/pay {payer} {payee} {arg}", {payer: Fraction(-arg), payee: Fraction(arg)}
            )
        elif kind == "zerosum":
            evening.say(f"/set zerosum {'on' if arg else 'off'}")
        elif kind == "new" and isinstance(arg, int):
            evening.open(arg, POOL[-arg:])
    expected = {name: value for name, value in evening.expected().items() if value}
    settle = evening.say("/settle")
    assert isinstance(settle, SettleView)
    plans = dict(settle.sections)
    assert set(plans) <= {"510k"}
    assert nets(plans.get("510k", ())) == expected
    assert len(plans.get("510k", ())) < max(len(expected), 1)  # the fewest: at most n − 1
    # In money: the same at the stake, each player's amount in whole cents, within a cent.
    price = Fraction(stake, 100)
    set_reply = evening.say(f"/set stake 510k {Decimal(stake) / 100}")
    assert isinstance(set_reply, StakeSet) and set_reply.stake == price
    money = evening.say("/settle money")
    assert isinstance(money, MoneyView)
    if expected:
        assert money.games == (("510k", price),)
    paid = nets(money.transfers)
    assert sum(paid.values(), Fraction(0)) == 0
    for name in set(paid) | set(expected):
        exact = expected.get(name, Fraction(0)) * price
        assert (paid.get(name, Fraction(0)) * 100).denominator == 1
        assert abs(paid.get(name, Fraction(0)) - exact) < Fraction(1, 100), name
