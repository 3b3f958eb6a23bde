"""Callback data carrying an id no record can have (2³¹: past PostgreSQL's INTEGER; 2⁶³: past
SQLite's) is refused as malformed at the edge, on both databases: an alert, no error, nothing
recorded; the largest id a record can have is read as one."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from bot.commands.callback_data import MAX_ID, parse_press
from tests.emulator.api import Chat, User
from tests.reliability.harness import BotUnderTest, describe, fresh_id, make_bot

BIG = (2**31, 2**63, 2**64, 10**19 - 1)
#: Every button whose data carries a record's id, as `callback_data` writes it.
SHAPES = ("v1:undo:{}", "v1:again:{}", "v1:reset:{}", "v1:me:{}.0", "v1:nm:1:j:i{}")


@pytest.fixture
def bot(engine: Engine) -> Iterator[BotUnderTest]:
    yield from make_bot(engine)


@pytest.mark.parametrize("shape", SHAPES)
def test_an_id_past_the_databases_integers_is_malformed_data(shape: str) -> None:
    assert parse_press(shape.format(MAX_ID)) is not None
    for big in BIG:
        assert parse_press(shape.format(big)) is None, big


def test_pressing_a_button_with_a_huge_id_is_refused_without_an_error(bot: BotUnderTest) -> None:
    chat = Chat(-fresh_id() - 3_100_000_000_000, "supergroup", title="ids")
    bot.api.add_chat(chat)
    users = [User(31_000_000 + fresh_id(), n, language_code="en") for n in ("Ann", "Bob")]
    bot.api.set_member(chat.id, users[0], "creator")
    bot.api.set_member(chat.id, users[1], "member")
    bot.say(users[0], "/new free 斗地主", chat)
    [message] = bot.say(users[0], "/join 老王", chat).sent  # offers [I am 老王]
    before = bot.snapshot()
    for shape in SHAPES:
        for big in BIG:
            outcome = bot.press(users[1], chat, message.message_id, shape.format(big))
            assert not outcome.errors, (shape, big, describe(outcome.errors))
            assert [a.show_alert for a in outcome.answers] == [True], (shape, big)
    assert bot.snapshot() == before
