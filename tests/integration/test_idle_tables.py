"""Issue 42, point 3: tables nobody closed, on both databases, with a clock the test controls.
A table with no record for the idle gap (six hours, `/set idle`) closes itself at the next
command that plays at it: its sitting ends (the reply's notice offers last night's card, once),
a new sitting begins at a new table of the same game and seats, and /summary never mixes the
two evenings. `/set idle off`: the table stays open."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from sqlalchemy.engine import Engine

from service.core import Service
from service.replies import Card, Info, Recorded, SettingChanged, SittingClosed
from service.requests import LastNight, Summary
from tests.integration.helpers import Chat

_chats = itertools.count(-9_423_000_000_000, -1)
P4 = ("Ann", "Bob", "Cat", "Dan")


class Clock:
    """The service's clock: real time, moved on by the test."""

    def __init__(self) -> None:
        self.ahead = timedelta()

    def __call__(self) -> datetime:
        return datetime.now(UTC) + self.ahead


def chat_with(engine: Engine, clock: Clock) -> Chat:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.service = Service(engine, now=clock)
    return chat


def answer(chat: Chat, name: str, text: str) -> tuple[object, SittingClosed | None]:
    """The reply and the notice of a command, as the bot gets them."""
    from bot.commands.parsing import parse
    from service.context import Actor, Ctx

    ctx = Ctx(
        chat_id=chat.chat_id,
        actor=Actor(abs(hash(name)) % 10**9 + 1, name, name.lower()),
        is_admin=name in chat.admins,
        update_id=None,
        text=text,
    )
    got = chat.service.answer(ctx, parse(text))
    return got.reply, got.notice


def test_a_table_idle_for_six_hours_closes_at_the_next_hand(engine: Engine) -> None:
    clock = Clock()
    chat = chat_with(engine, clock)
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Ann zimo")
    chat.say("Ann", "/hu Bob zimo")  # Bob deals now
    clock.ahead = timedelta(hours=5, minutes=59)
    reply, notice = answer(chat, "Ann", "/hu Cat zimo")
    assert notice is None and isinstance(reply, Recorded) and reply.view.hand_no == 3
    clock.ahead = timedelta(hours=12)  # the next evening
    reply, closed = answer(chat, "Ann", "/dealer Ann")  # nothing played at the new table:
    assert isinstance(closed, SittingClosed) and closed.hours >= 6
    before = chat.press("Ann", Summary())  # /summary is still last night's
    assert isinstance(before, Card) and dict(before.hands) == {"mahjong": 3}
    reply, notice = answer(chat, "Ann", "/hu Dan zimo")
    assert notice is None
    assert isinstance(reply, Recorded) and reply.view.hand_no == 1  # a new sitting's table
    assert reply.dealer == "Bob"  # seat 1 dealt the new evening's first hand: Dan won, Bob next
    tonight = chat.press("Ann", Summary())
    assert isinstance(tonight, Card) and dict(tonight.hands) == {"mahjong": 1}  # not mixed
    last_night = chat.press("Ann", LastNight(closed.before))
    assert isinstance(last_night, Card) and dict(last_night.hands) == {"mahjong": 3}
    reply, notice = answer(chat, "Ann", "/hu Ann zimo")  # offered once: no notice again
    assert notice is None and isinstance(reply, Recorded) and reply.view.hand_no == 2


def test_idle_can_be_set_or_turned_off(engine: Engine) -> None:
    clock = Clock()
    chat = chat_with(engine, clock)
    chat.seat("mahjong", *P4)
    set_off = chat.say("Ann", "/set idle off")
    assert isinstance(set_off, SettingChanged) and set_off.value == "0"
    chat.say("Ann", "/hu Ann zimo")
    clock.ahead = timedelta(days=2)
    reply, notice = answer(chat, "Ann", "/hu Bob zimo")
    assert notice is None and isinstance(reply, Recorded) and reply.view.hand_no == 2
    assert isinstance(chat.say("Ann", "/set idle 90m"), SettingChanged)
    clock.ahead = timedelta(days=2, minutes=89)
    assert answer(chat, "Ann", "/hu Cat zimo")[1] is None
    clock.ahead = timedelta(days=2, hours=3)  # 91 minutes after the last hand
    reply, notice = answer(chat, "Ann", "/fee 40 台费")  # a fee plays at the table too
    assert isinstance(notice, SittingClosed) and isinstance(reply, Recorded)
    assert reply.view.hand_no == 1


def test_a_table_with_nothing_recorded_waits_and_reads_do_not_close(engine: Engine) -> None:
    clock = Clock()
    chat = chat_with(engine, clock)
    chat.seat("mahjong", *P4)
    clock.ahead = timedelta(hours=30)
    reply, notice = answer(chat, "Ann", "/hu Ann zimo")  # nothing to close: it was never used
    assert notice is None and isinstance(reply, Recorded) and reply.view.hand_no == 1
    clock.ahead = timedelta(hours=40)
    assert answer(chat, "Ann", "/standings")[1] is None  # a read changes nothing
    summary = chat.press("Ann", Summary())
    assert isinstance(summary, Card | Info)
