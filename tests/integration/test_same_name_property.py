"""Issue 37's random evenings, on SQLite and PostgreSQL (an extension of the random evenings of
`test_people_property`): six members, two of them named David (two Telegram accounts), seated
by @username at mahjong, 510K and a free game, hands, rounds, transfers and undos, each game's
stake and the chat's set and taken off. Whatever happened: the two Davids are two players
told apart by name; /settle squares each zero-sum game's standings exactly; /settle money is
each game's settle-up at its stake, in whole cents, within a cent per player; and the night's
card (its figures and its caption's lines) gives the very money of /settle money."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from bot.commands.parsing import parse
from bot.presentation.render import Renderer
from service.context import Actor, Ctx
from service.core import Service
from service.errors import ServiceError
from service.replies import (
    Card,
    MoneyView,
    RepeatAsk,
    Reply,
    SettleView,
    StandingsView,
    TableView,
)
from service.requests import Again, Request, Settle, Standings, Summary
from tests.integration.test_settle_squared import nets, reports

#: (first name, user id, @username): two members named David.
MEMBERS = (
    ("Alice", 7101, "alice"),
    ("Bruno", 7102, "bruno"),
    ("David", 7103, "david_one"),
    ("Chen", 7104, "chen"),
    ("David", 7105, "david_two"),
    ("Emma", 7106, "emma"),
)
GAMES = ("mahjong", "510k", "free poker")
STAKES = ("mahjong", "510k", "poker", "")  # "": the chat's
_chats = itertools.count(-9_370_000_000_000)
_updates = itertools.count(937_000_000)  # apart from helpers.py's ids

STEPS = st.one_of(
    st.tuples(st.just("seats"), st.tuples(st.sampled_from(GAMES), st.permutations(range(6)))),
    st.tuples(st.just("hu"), st.tuples(st.integers(1, 4), st.integers(0, 4))),
    st.tuples(st.just("r"), reports(4)),
    st.tuples(st.just("s"), st.tuples(st.integers(-2000, 2000), st.integers(-2000, 2000))),
    st.tuples(st.just("pay"), st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 9))),
    st.tuples(st.just("undo"), st.none()),
    st.tuples(
        st.just("stake"),
        st.tuples(st.sampled_from(STAKES), st.sampled_from(("off", "0", "0.1", "0.25", "1"))),
    ),
)


class Members:
    """The six members of one chat, each typing as themselves; a repeat is recorded again."""

    def __init__(self, engine: Engine) -> None:
        self.service = Service(engine)
        self.chat_id = next(_chats)
        self.game = ""

    def say(self, who: int, text: str) -> Reply | None:
        try:
            return self.press(who, parse(text), text)
        except ServiceError:
            return None

    def press(self, who: int, request: Request, text: str = "[button]") -> Reply:
        name, user_id, username = MEMBERS[who]
        ctx = Ctx(
            chat_id=self.chat_id,
            actor=Actor(user_id, name, username),
            is_admin=who == 0,
            update_id=next(_updates),
            text=text,
        )
        reply = self.service.execute(ctx, request)
        if isinstance(reply, RepeatAsk):
            return self.press(who, Again(reply.view.event_id))
        return reply

    def seat(self, game: str, order: Sequence[int]) -> None:
        self.say(0, f"/new {game} confirm")
        self.say(0, "/seats " + " ".join("@" + MEMBERS[i][2] for i in order[:4]))
        self.game = game


def step(members: Members, kind: str, arg: object) -> None:
    game = members.game
    if kind == "seats" and isinstance(arg, tuple):
        members.seat(arg[0], arg[1])
    elif kind == "hu" and game == "mahjong" and isinstance(arg, tuple):
        winner, payer = arg
        how = "zimo" if payer in (0, winner) else f"pao {payer}"
        members.say(0, f"/hu {winner} {how}")
    elif kind == "r" and game == "510k" and isinstance(arg, tuple):
        table, order, held = arg
        entries = " ".join(
            f"{s + 1}={t}" + (f"/{held[s]}" if held[s] else "") for s, t in enumerate(table)
        )
        members.say(0, f"/r {entries} out {' '.join(str(s + 1) for s in order)}")
    elif kind == "s" and game == "free poker" and isinstance(arg, tuple):
        a, b = (f"{'-' if v < 0 else '+'}{Decimal(abs(v)) / 100}" for v in arg)
        members.say(0, f"/s 1{a} 2{b} 3")
    elif kind == "pay" and game and isinstance(arg, tuple) and arg[0] != arg[1]:
        members.say(0, f"/pay {arg[0]} {arg[1]} {arg[2]}")
    elif kind == "undo" and game:
        members.say(0, "/undo")
    elif kind == "stake" and isinstance(arg, tuple):
        unit, value = arg
        members.say(0, f"/set stake {unit} {value}" if unit else f"/set stake {value}")


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    first=st.permutations(range(6)),
    steps=st.lists(STEPS, min_size=1, max_size=14),
)
def test_two_davids_settle_alike_in_settle_money_and_the_card(
    engine: Engine, first: list[int], steps: list[tuple[str, object]]
) -> None:
    members = Members(engine)
    members.say(0, "/new mahjong")
    for who in range(6):  # everyone sits down once: a member is known, then by @username
        joined = members.say(who, "/join")
        assert isinstance(joined, TableView)
        assert (MEMBERS[who][0] if who != 4 else "David (2)") in joined.seats
        assert members.say(who, "/leave") is not None
    members.seat("mahjong", first)
    for kind, arg in steps:
        step(members, kind, arg)
    standings = members.press(3, Standings())
    assert isinstance(standings, StandingsView)
    for _unit, rows in standings.sections:  # one line per player, no two of one name
        assert len({name for name, _ in rows}) == len(rows)
    shown = {name for _unit, rows in standings.sections for name, _ in rows}
    assert not shown & {"David (3)"}  # two Davids at most: David and David (2)
    settle = members.press(3, Settle())
    assert isinstance(settle, SettleView)
    by_unit = {unit: nets(plan) for unit, plan in settle.sections}
    for unit, rows in standings.sections:
        assert sum(by_unit.get(unit, {}).values(), Fraction(0)) == 0
        if unit != "510k":  # zero-sum games: squared as they stand
            assert by_unit.get(unit, {}) == {name: v for name, v in rows if v}
    money = members.press(3, Settle(money=True))
    assert isinstance(money, MoneyView)
    paid = nets(money.transfers)
    stakes = dict(money.games)
    for name in set(paid) | {n for plan in by_unit.values() for n in plan}:
        exact = sum(
            (plan.get(name, Fraction(0)) * stakes[u] for u, plan in by_unit.items() if u in stakes),
            Fraction(0),
        )
        assert (paid.get(name, Fraction(0)) * 100).denominator == 1
        assert abs(paid.get(name, Fraction(0)) - exact) < Fraction(1, 100)
    card = members.press(3, Summary())
    if not isinstance(card, Card):  # nothing recorded (or all undone)
        assert not any(plan for _u, plan in settle.sections)
        return
    assert card.games == money.games and card.left_out == money.left_out
    if money.games:
        assert card.plan == ((("money", money.transfers),) if money.transfers else ())
        assert card.rounded == money.rounded
        for line in card.lines:
            assert line.money == paid.get(line.name, Fraction(0))
    else:
        assert card.plan == tuple((u, p) for u, p in settle.sections if p)
    for lang in ("en", "zh"):  # the caption's lines of who pays whom are /settle money's
        renderer = Renderer(lang)
        caption = renderer.render(card).text.splitlines()
        listed = renderer.render(money if money.games else settle).text.splitlines()
        assert [x for x in caption if "→" in x] == [x for x in listed if "→" in x]
