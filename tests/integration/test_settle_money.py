"""/settle and /settle money through the service, on SQLite and PostgreSQL: a game's own stake
and the chat's, money across games in whole cents, games without a stake left out, the archive
offered to admins, a finished marathon squared as one hand, and the pars kept with an undo."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from sqlalchemy.engine import Engine

from scoring.k510 import score_marathon
from scoring.k510_model import MarathonState
from service.errors import Forbidden, ServiceError
from service.replies import MoneyView, RulesView, SettleView, StakeSet
from storage.gateway import chats
from storage.gateway import ledger as book
from tests.integration.helpers import Chat

_chats = itertools.count(-9_400_000_000_000)
F = Fraction


def evening(engine: Engine) -> Chat:
    """Mahjong and poker, one transfer; Alice is the admin. Mahjong: Alice +37, Bob -12,
    Carol -12, Dave -13; poker: Alice -380, Bob +200, Carol +180."""
    chat = Chat(engine, next(_chats), admins=("Alice",))
    chat.seat("mahjong", "Alice", "Bob", "Carol", "Dave")
    chat.say("Alice", "/hu Alice zimo qys pph")
    chat.say("Alice", "/pay Dave Alice 1")
    chat.seat("free poker", "Alice", "Bob", "Carol", "Dave")
    chat.say("Alice", "/s Bob+200 Carol+180 Alice")
    return chat


def nets(plan: tuple[tuple[str, str, Fraction], ...]) -> dict[str, Fraction]:
    out: dict[str, Fraction] = {}
    for payer, payee, amount in plan:
        out[payer] = out.get(payer, F(0)) - amount
        out[payee] = out.get(payee, F(0)) + amount
    return out


def money(chat: Chat, who: str = "Alice", text: str = "/settle money") -> MoneyView:
    view = chat.say(who, text)
    assert isinstance(view, MoneyView)
    return view


def test_each_game_at_its_own_stake_in_one_list(engine: Engine) -> None:
    chat = evening(engine)
    chat.say("Alice", "/set stake 0.1")  # one stake for both: the evening
    settle = chat.say("Alice", "/settle")
    assert isinstance(settle, SettleView)
    assert dict(settle.stakes) == {"mahjong": F(1, 10), "free:poker": F(1, 10)}
    assert nets(dict(settle.sections)["mahjong"])["Alice"] * F(1, 10) == F(37, 10)
    assert nets(dict(settle.sections)["free:poker"])["Alice"] * F(1, 10) == -38
    assert nets(money(chat).transfers)["Alice"] == F(-343, 10)  # one figure: 3.7 - 38
    stake = chat.say("Alice", "/set stake mahjong 1")
    assert stake == StakeSet("mahjong", F(1), F(1, 10), (("mahjong", F(1)),))
    chat.say("Alice", "/set stake poker 0.1")
    chat.say("Alice", "/set stake off")
    view = money(chat)
    assert view.games == (("mahjong", F(1)), ("free:poker", F(1, 10)))
    assert view.left_out == () and not view.rounded
    # Alice 37 - 38 = -1, Bob -12 + 20 = 8, Carol -12 + 18 = 6, Dave -13
    assert view.transfers == (
        ("Alice", "Carol", F(1)),
        ("Dave", "Bob", F(8)),
        ("Dave", "Carol", F(5)),
    )
    assert view.archive is not None  # Alice is an admin
    assert money(chat, "Bob").archive is None


def test_a_game_without_a_stake_is_left_out_and_said(engine: Engine) -> None:
    chat = evening(engine)
    chat.seat("free hearts", "Alice", "Bob")
    chat.say("Alice", "/s Alice+5 Bob")
    chat.say("Alice", "/set stake mahjong 1")
    view = money(chat)
    assert view.games == (("mahjong", F(1)),)
    assert view.left_out == ("free:hearts", "free:poker")
    assert nets(view.transfers) == {"Alice": F(37), "Bob": F(-12), "Carol": F(-12), "Dave": F(-13)}
    chat.say("Alice", "/set stake 0.5")  # every game without its own
    view = money(chat)
    assert dict(view.games) == {"mahjong": F(1), "free:hearts": F(1, 2), "free:poker": F(1, 2)}
    assert nets(view.transfers)["Alice"] == 37 + F(5, 2) - 190
    chat.say("Alice", "/set stake mahjong 0")  # mahjong for nothing
    assert "mahjong" in money(chat).left_out
    chat.say("Alice", "/set stake mahjong off")  # back to the chat's
    assert dict(money(chat).games)["mahjong"] == F(1, 2)


def test_no_stake_at_all_counts_nothing(engine: Engine) -> None:
    view = money(evening(engine))
    assert view.games == () and view.transfers == ()
    assert view.left_out == ("mahjong", "free:poker")


def test_money_in_whole_cents_adds_up(engine: Engine) -> None:
    """Three players share a 510K hand's 50 in thirds: at 0.1 a point, cents are rounded (each
    down, the cent left to the largest remainder, here a tie: the first name)."""
    chat = Chat(engine, next(_chats), admins=("Alice",))
    chat.seat("510k3", "Alice", "Bob", "Carol")
    chat.say("Alice", "/r Alice=40 Bob=10 Carol=0 out Alice Bob")  # 60, 10, -20: 50 in all
    chat.say("Alice", "/set stake 510k 0.1")
    settle = chat.say("Alice", "/settle")
    assert isinstance(settle, SettleView) and settle.squared == ("510k",)
    third = F(50, 3)
    assert nets(dict(settle.sections)["510k"]) == {
        "Alice": 60 - third,
        "Bob": 10 - third,
        "Carol": -20 - third,
    }
    view = money(chat)
    assert view.rounded
    assert nets(view.transfers) == {"Alice": F(434, 100), "Bob": F(-67, 100), "Carol": F(-367, 100)}


def test_zero_sum_hands_are_not_squared_again(engine: Engine) -> None:
    chat = Chat(engine, next(_chats), admins=("Alice",))
    chat.say("Alice", "/new 510k zerosum")
    chat.say("Alice", "/seats Alice Bob Carol Dave")
    chat.say("Alice", "/r Alice=30 Bob=20 Carol=40 Dave=10 out Alice Carol")
    settle = chat.say("Alice", "/settle")
    assert isinstance(settle, SettleView)
    assert settle.squared == ()  # the reply's "not zero-sum" note is not printed
    assert nets(dict(settle.sections)["510k"]) == {
        "Alice": 25,
        "Bob": -25,
        "Carol": 25,
        "Dave": -25,
    }


def test_a_substitute_pays_for_his_hands_only_and_undo_takes_the_par_back(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("510k", "Alice", "Bob", "Carol", "Dave")
    chat.say("Alice", "/r Alice=30 Bob=20 Carol=40 Dave=10 out Alice Carol")  # 45 -5 45 -5
    chat.say("Alice", "/seats Alice Erin Carol Dave")
    chat.say("Alice", "/r Alice=60 Erin=0 Carol=40 Dave=0 out Alice Carol")  # 120 -40 120 -40
    settle = chat.say("Alice", "/settle")
    assert isinstance(settle, SettleView)
    # hand 1: average 20 → 25 -25 25 -25; hand 2: average 40 → 80 -80 80 -80
    assert nets(dict(settle.sections)["510k"]) == {
        "Alice": 105,
        "Bob": -25,
        "Carol": 105,
        "Dave": -105,
        "Erin": -80,
    }
    chat.say("Alice", "/undo")
    settle = chat.say("Alice", "/settle")
    assert isinstance(settle, SettleView)
    assert nets(dict(settle.sections)["510k"]) == {
        "Alice": 25,
        "Bob": -25,
        "Carol": 25,
        "Dave": -25,
    }
    with engine.connect() as db:
        season = chats.current_season(db, chat.chat_id)
        assert season is not None
        pars = {row.player_id: row.par for row in book.balances(db, season.id)}
    assert sorted(pars.values()) == [0, 20, 20, 20, 20]  # Erin's hand is undone


def test_a_finished_marathon_is_squared_as_one_hand_of_its_teams(engine: Engine) -> None:
    """Erin sits in for Bob after two hands: she plays on with his seat's totals (the team
    keeps its progress, as /rules says); the team's score is shared by hands played, Bob 2 of
    its 10 player-hands, Erin 3, Dave 5, and squared the same way, as zerosum would have
    recorded it."""
    chat = Chat(engine, next(_chats))
    chat.say("Alice", "/new 510k marathon")
    chat.say("Alice", "/seats Alice Bob Carol Dave")
    chat.say("Alice", "/r Alice=60 Bob=0 Carol=40 Dave=0 out Alice Carol")  # 80 -20 40 -20
    chat.say("Alice", "/r Alice=55 Bob=0 Carol=40 Dave=0 out Alice Carol")  # 75 -20 40 -20
    chat.say("Alice", "/seats Alice Erin Carol Dave")
    for _ in range(3):  # Alice+Carol: 235, 355, 475, 595: over 500 at the fifth hand
        chat.say("Alice", "/r Alice=60 Erin=0 Carol=40 Dave=0 out Alice Carol")
    final = MarathonState(
        card_points=(80 + 75 + 3 * 80, 5 * -20, 5 * 40, 5 * -20),
        table=(60 + 55 + 3 * 60, 0, 5 * 40, 0),
        first_out=(5, 0, 0, 0),
        hands=5,
        last_order=(0, 2),
    )
    zerosum = score_marathon(final, zerosum=True).scores
    settle = chat.say("Alice", "/settle")
    assert isinstance(settle, SettleView)
    team = zerosum[1] + zerosum[3]
    assert nets(dict(settle.sections)["510k"]) == {
        "Alice": zerosum[0],
        "Carol": zerosum[2],
        "Dave": team * 5 / 10,
        "Bob": team * 2 / 10,
        "Erin": team * 3 / 10,
    }
    assert settle.squared == ("510k",)


def test_stakes_are_for_admins_and_rules_say_them(engine: Engine) -> None:
    chat = evening(engine)
    with pytest.raises(Forbidden):
        chat.say("Bob", "/set stake mahjong 1")
    chat.say("Alice", "/set stake 0.5")
    chat.say("Alice", "/set stake POKER 0.2")  # the season's spelling: poker
    chat.say("Alice", "/set stake 510k 0.25")
    rules = chat.say("Alice", "/rules")
    assert isinstance(rules, RulesView)
    assert rules.stake == F(1, 2)
    assert rules.stakes == (("510k", F(1, 4)), ("free:poker", F(1, 5)))
    chat.say("Alice", "/set stake Poker off")
    rules = chat.say("Alice", "/rules")
    assert isinstance(rules, RulesView) and rules.stakes == (("510k", F(1, 4)),)


def test_a_chat_has_at_most_thirty_games_with_their_own_stake(engine: Engine) -> None:
    chat = Chat(engine, next(_chats), admins=("Alice",))
    chat.seat("mahjong", "Alice", "Bob", "Carol", "Dave")
    for n in range(30):
        chat.say("Alice", f"/set stake game{n} 0.1")
    with pytest.raises(ServiceError):
        chat.say("Alice", "/set stake game30 0.1")
    chat.say("Alice", "/set stake game3 0.2")  # one already there may change


def test_the_archive_button_is_for_the_current_season_only(engine: Engine) -> None:
    chat = evening(engine)
    settle = chat.say("Alice", "/settle")
    assert isinstance(settle, SettleView) and settle.archive is not None
    chat.say("Alice", "/reset confirm")
    old = chat.say("Alice", "/settle 1")
    assert isinstance(old, SettleView) and old.archive is None


def test_a_chat_move_keeps_the_pars_and_the_stakes(engine: Engine) -> None:
    """Group → supergroup with 510K hands in both: the members' pars add up like their
    balances, a game's own stake set in the new chat wins, and /settle squares both hands."""
    old, new = (Chat(engine, next(_chats), admins=("Ann",)) for _ in range(2))
    for chat, first in ((old, "Ann=30 Bob=20 Cat=40 Dan=10"), (new, "Ann=60 Bob=0 Cat=40 Dan=0")):
        chat.say("Ann", "/new 510k")
        for name in ("Ann", "Bob", "Cat", "Dan"):
            chat.say(name, "/join")
        chat.say("Ann", f"/r {first} out Ann Cat")
    old.say("Ann", "/set stake 510k 0.5")
    old.say("Ann", "/set stake mahjong 2")
    new.say("Ann", "/set stake 510k 0.1")
    new.service.move_chat(old.chat_id, new.chat_id)
    settle = new.say("Ann", "/settle")
    assert isinstance(settle, SettleView)
    # 45 -5 45 -5 (average 20) and 120 -40 120 -40 (average 40): 105 each way
    assert nets(dict(settle.sections)["510k"]) == {"Ann": 105, "Bob": -105, "Cat": 105, "Dan": -105}
    assert dict(settle.stakes) == {"510k": F(1, 10)}
    rules = new.say("Ann", "/rules")
    assert isinstance(rules, RulesView) and rules.stakes == (("mahjong", F(2)), ("510k", F(1, 10)))
