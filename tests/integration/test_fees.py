"""Issue 42, point 1: /fee, a cost beside the score, on both databases. A fee is a record of its
own, numbered like a hand, undone like one, in money: shared to the cent (the odd cent said),
owed to whoever paid it or to the house; never in a game's points (standings, stats, chart),
and squared with the games by /settle money."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from sqlalchemy.engine import Engine

from bot.commands.fees import parse_fee
from bot.commands.reader import ParseError
from scoring.fees import split
from service.errors import ServiceError
from service.hand_views import FeeView
from service.replies import (
    ChartData,
    Edited,
    MoneyView,
    Recorded,
    StandingsView,
    StatsView,
    Undone,
)
from service.requests import Fee, PlayerRef, RefKind
from tests.integration.helpers import Chat

_chats = itertools.count(-9_420_000_000_000, -1)
P4 = ("Ann", "Bob", "Cat", "Dan")


def money(chat: Chat) -> dict[str, Fraction]:
    """Each player's money at /settle money (what they get, negative: what they pay)."""
    view = chat.say("Ann", "/settle money")
    assert isinstance(view, MoneyView)
    out: dict[str, Fraction] = {}
    for payer, payee, amount in view.transfers:
        out[payer] = out.get(payer, Fraction(0)) - amount
        out[payee] = out.get(payee, Fraction(0)) + amount
    return out


def test_the_parser_reads_the_contract_forms() -> None:
    usage = "/fee"
    name = lambda n: PlayerRef(RefKind.NAME, n)  # noqa: E731
    assert parse_fee("120 台费", usage) == Fee(Fraction(120), "台费")
    assert parse_fee("120 台费 all", usage) == Fee(Fraction(120), "台费", everyone=True)
    assert parse_fee("120 台费 paid 老王", usage) == Fee(Fraction(120), "台费", name("老王"))
    assert parse_fee("30 茶水 小李 阿张", usage) == Fee(
        Fraction(30), "茶水", players=(name("小李"), name("阿张"))
    )
    assert parse_fee("120", usage) == Fee(Fraction(120), "台费")  # `/台费 120`
    assert parse_fee("台费 120", usage) == Fee(Fraction(120), "台费")
    assert parse_fee("35.5元 房费", usage).amount == Fraction(71, 2)
    for bad in ("", "x", "0 台费", "1.234 台费", "10 台费 paid", "10 台费 all 小李"):
        with pytest.raises(ParseError):
            parse_fee(bad, usage)


def test_the_odd_cent_goes_one_way_and_adds_up() -> None:
    cut = split(Fraction(100), [1, 2, 3])
    assert cut.shares == {1: Fraction("33.34"), 2: Fraction("33.33"), 3: Fraction("33.33")}
    assert cut.extra == (1,)
    paid = split(Fraction(100), [1, 2, 3], payer=3)
    assert paid.extra == (3,) and sum(paid.shares.values()) == 100


def test_a_fee_paid_by_one_is_owed_to_them_and_settled_with_the_games(engine: Engine) -> None:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Ann zimo")  # Ann +9, the others -3
    fee = chat.say("Bob", "/fee 120 台费 paid Bob")
    assert isinstance(fee, Recorded) and fee.view.kind == "fee" and fee.view.hand_no == 2
    assert isinstance(fee.view.detail, FeeView) and fee.view.detail.paid_by == "Bob"
    assert dict(fee.view.net) == {"Ann": -30, "Bob": 90, "Cat": -30, "Dan": -30}
    assert chat.balances() == {"Ann": 9, "Bob": -3, "Cat": -3, "Dan": -3}  # points untouched
    assert money(chat) == {"Ann": -30, "Bob": 90, "Cat": -30, "Dan": -30}  # no stake: fees only
    chat.say("Ann", "/set stake 1")
    assert money(chat) == {"Ann": -21, "Bob": 87, "Cat": -33, "Dan": -33}
    undone = chat.say("Ann", "/undo")
    assert isinstance(undone, Undone) and undone.view.kind == "fee"
    assert money(chat) == {"Ann": 9, "Bob": -3, "Cat": -3, "Dan": -3}


def test_a_fee_nobody_paid_yet_is_owed_to_the_house(engine: Engine) -> None:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/set stake 1")
    chat.say("Ann", "/hu Ann zimo")
    fee = chat.say("Ann", "/fee 100 台费")
    assert isinstance(fee, Recorded) and isinstance(fee.view.detail, FeeView)
    assert fee.view.detail.extra == ()  # 25 each
    assert all(p.payee is None and p.amount == 25 for p in fee.view.payments)
    assert money(chat) == {"Ann": 9, "Bob": -3, "Cat": -3, "Dan": -3}  # not between players
    odd = chat.say("Ann", "/fee 10 茶水 Bob Cat Dan")
    assert isinstance(odd, Recorded) and isinstance(odd.view.detail, FeeView)
    assert odd.view.detail.extra == ("Bob",)  # 3.34, 3.33, 3.33
    assert money(chat) == {"Ann": 9, "Bob": -3, "Cat": -3, "Dan": -3}
    chat.say("Ann", "/undo 2")  # by its number, like a hand
    assert money(chat) == {"Ann": 9, "Bob": -3, "Cat": -3, "Dan": -3}


def test_a_fee_is_never_in_the_points(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Ann zimo")
    chat.say("Bob", "/fee 120 台费 paid Bob")
    standings = chat.say("Ann", "/standings")
    assert isinstance(standings, StandingsView)
    assert [unit for unit, _rows in standings.sections] == ["mahjong"]
    stats = chat.say("Ann", "/stats")
    assert isinstance(stats, StatsView) and "money" not in repr(stats)
    chart = chat.say("Ann", "/chart")
    assert isinstance(chart, ChartData) and [s.unit for s in chart.series] == ["mahjong"]
    assert chart.live_hands == 1


def test_all_shares_among_the_sitting_and_names_must_be_known(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Ann zimo")
    chat.say("Ann", "/new free poker confirm")
    chat.say("Ann", "/seats Ann Eve")
    chat.say("Ann", "/s Ann+1 Eve")
    table = chat.say("Ann", "/fee 20 台费")
    assert isinstance(table, Recorded) and len(table.view.payments) == 2  # the open table's
    everyone = chat.say("Ann", "/fee 100 房费 all paid Eve")
    assert isinstance(everyone, Recorded)
    assert sorted(n for n, _a in everyone.view.net) == ["Ann", "Bob", "Cat", "Dan", "Eve"]
    named = chat.say("Ann", "/fee 10 茶水 Bob Cat")  # Bob and Cat played tonight
    assert isinstance(named, Recorded) and len(named.view.payments) == 2
    with pytest.raises(ServiceError):
        chat.say("Ann", "/fee 10 茶水 Zed")
    with pytest.raises(ServiceError):
        chat.say("Ann", "/fee 10 茶水 Ann paid Ann")


def test_a_fee_is_corrected_in_place_and_the_undo_of_that_restores_it(engine: Engine) -> None:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Ann zimo")
    chat.say("Bob", "/fee 120 台费 paid Bob")
    chat.say("Ann", "/hu Cat zimo")
    edited = chat.say("Bob", "/edit 2 /fee 100 台费 paid Bob")
    assert isinstance(edited, Edited) and edited.view.hand_no == 2
    assert dict(edited.view.net) == {"Ann": -25, "Bob": 75, "Cat": -25, "Dan": -25}
    assert chat.balances() == {"Ann": 6, "Bob": -6, "Cat": 6, "Dan": -6}  # points untouched
    assert money(chat) == {"Ann": -25, "Bob": 75, "Cat": -25, "Dan": -25}
    house = chat.say("Bob", "/edit 2 fee 100 台费")  # nobody paid it yet: owed to the house
    assert isinstance(house, Edited)
    assert money(chat) == {}
    chat.say("Bob", "/undo")  # the last correction undone: paid by Bob again
    assert money(chat) == {"Ann": -25, "Bob": 75, "Cat": -25, "Dan": -25}
    with pytest.raises(ServiceError) as refused:  # a fee stays a fee
        chat.say("Bob", "/edit 2 /hu Ann zimo")
    assert refused.value.params["command"] == "/fee"
