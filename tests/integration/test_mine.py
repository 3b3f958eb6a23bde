"""/mine on SQLite and PostgreSQL: a member's account is their /standings line, their last
records with what each did to them, and exactly their lines of /settle money; over a random
evening, what everyone gets less what they pay at /settle money is what their account says,
and it adds up to nothing."""

from __future__ import annotations

import itertools
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from bot.commands.parsing import ParseError
from service.errors import ServiceError
from service.replies import MineGroup, MineView, MoneyView
from service.requests import Mine
from tests.integration.helpers import Chat

NAMES = ("Ann", "Bob", "Cat", "Dan")
_chats = itertools.count(-9_440_000_000_000)

a_round = st.lists(
    st.tuples(st.sampled_from(NAMES), st.integers(1, 500), st.booleans()),
    min_size=1,
    max_size=3,
    unique_by=lambda e: e[0],
)


def evening(engine: Engine, stake: str = "0.5") -> Chat:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.say("Ann", "/new free 斗地主")
    for name in NAMES:
        chat.say(name, "/join")
    chat.say("Ann", f"/set stake {stake}")
    return chat


def account(chat: Chat, name: str) -> MineGroup:
    view = chat.press(name, Mine(), text="/mine")
    assert isinstance(view, MineView) and view.in_group
    [group] = view.groups
    return group


def test_mine_is_my_standings_my_hands_and_my_money(engine: Engine) -> None:
    chat = evening(engine)
    chat.say("Bob", "/s Ann+30 Bob-10 Cat")  # Cat: the balance, -20
    chat.say("Bob", "/s Bob+8 Dan")
    chat.say("Cat", "/pay Cat Dan 3")
    chat.say("Cat", "/s Ann+1 Cat")
    chat.say("Cat", "/undo")  # undone: not among the hands, not in the balance
    cat = account(chat, "Cat")
    assert cat.name == "Cat" and cat.season == 1
    assert cat.balances == (("free:斗地主", Fraction(-23)),)
    assert [(h.hand_no, h.text, h.net) for h in cat.hands] == [
        (3, "/pay Cat Dan 3", Fraction(-3)),
        (2, "/s Bob+8 Dan", Fraction(0)),  # seated at it: a round Cat played, for nothing
        (1, "/s Ann+30 Bob-10 Cat", Fraction(-20)),
    ]
    assert cat.counted == (("free:斗地主", Fraction(1, 2)),)
    money = chat.say("Cat", "/settle money")
    assert isinstance(money, MoneyView)
    mine = [(b, amount) for a, b, amount in money.transfers if a == "Cat"]
    assert list(cat.pays) == mine and cat.gets == ()
    assert sum((amount for _b, amount in cat.pays), Fraction(0)) == Fraction(23, 2)


def test_no_stake_no_money_and_no_player_no_account(engine: Engine) -> None:
    chat = evening(engine, stake="0")
    chat.say("Bob", "/s Ann+30 Bob")
    ann = account(chat, "Ann")
    assert ann.counted == () and ann.pays == ann.gets == ()
    stranger = chat.press("Zoe", Mine(), text="/mine")
    assert stranger == MineView(groups=(), in_group=True)


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(rounds=st.lists(a_round, min_size=1, max_size=8))
def test_what_each_gets_less_pays_is_their_money_and_adds_up_to_nothing(
    engine: Engine, rounds: list[list[tuple[str, int, bool]]]
) -> None:
    chat = evening(engine)
    for scored in rounds:
        *named, (last, _, _) = scored
        words = [f"{name}{'+' if up else '-'}{value}" for name, value, up in named]
        try:
            chat.say("Ann", " ".join(["/s", *words, last]))
        except (ParseError, ServiceError):
            continue
    money = chat.say("Ann", "/settle money")
    assert isinstance(money, MoneyView)
    total = Fraction(0)
    for name in NAMES:
        group = account(chat, name)
        net = sum((a for _n, a in group.gets), Fraction(0)) - sum(
            (a for _n, a in group.pays), Fraction(0)
        )
        paid = sum((a for p, _q, a in money.transfers if p == name), Fraction(0))
        got = sum((a for _p, q, a in money.transfers if q == name), Fraction(0))
        assert net == got - paid
        balance = sum((amount for _u, amount in group.balances), Fraction(0))
        assert abs(net - balance / 2) < Fraction(1, 100)  # at 0.5 a point, to the cent
        total += net
    assert total == 0
