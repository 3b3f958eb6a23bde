"""/pay transfers take hand numbers at any table, but they are not hands: a transfer after the
last hand leaves that hand the table's last (its undo brings the dealer back; in a marathon it
may still be undone), and undoing a transfer by its number moves balances only."""

from __future__ import annotations

import itertools

from sqlalchemy.engine import Engine

from service.replies import Recorded, Undone
from tests.integration.helpers import Chat

_chats = itertools.count(-9_300_000_000_000, -1)
P4 = ("Ann", "Bob", "Cat", "Dan")


def test_a_transfer_after_the_last_hand_leaves_it_the_last(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    hand = chat.say("Ann", "/hu Bob zimo")  # Bob is not the dealer: the deal passes to him
    assert isinstance(hand, Recorded) and hand.view.hand_no == 1 and hand.dealer == "Bob"
    pay = chat.say("Ann", "/pay Cat Dan 5")
    assert isinstance(pay, Recorded) and pay.view.hand_no == 2
    undone = chat.say("Ann", "/undo 1")
    assert isinstance(undone, Undone) and undone.dealer == "Ann"  # the dealer comes back


def test_a_marathon_hand_with_a_transfer_after_it_can_be_undone(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("510k marathon", *P4)
    chat.say("Ann", "/r Ann=30 Bob=20 Cat=40 Dan=10 out Ann Cat")
    chat.say("Ann", "/pay Cat Dan 5")
    assert isinstance(chat.say("Ann", "/undo 1"), Undone)
    undone = chat.say("Ann", "/undo 2")  # the transfer, by its number
    assert isinstance(undone, Undone) and undone.view.hand_no == 2
