"""A hand typed at the moment of a /reset (issue 15.13): wherever it lands, the replies say
which season it is in — the reset names the archived season's last hand, and a hand answered
after the reset (a redelivery) names its archived season."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from tests.emulator.api import Chat, User
from tests.reliability.harness import BotUnderTest, fresh_id, make_bot


@pytest.fixture
def bot(sqlite_engine: Engine) -> Iterator[BotUnderTest]:
    yield from make_bot(sqlite_engine)


def test_replies_around_a_reset_name_the_season(bot: BotUnderTest) -> None:
    users = [User(fresh_id() + 93_000, n, language_code="en") for n in ("Ann", "Bob", "Cat", "Dan")]
    chat = Chat(-100_930_000 - fresh_id(), "supergroup", title="t")
    bot.api.add_chat(chat)
    for user in users:
        bot.api.set_member(chat.id, user, "member")
    bot.api.set_member(chat.id, users[0], "creator")
    ann = users[0]
    bot.say(ann, "/new mahjong", chat)
    for user in users:
        bot.say(user, "/join", chat)
    hand = bot.api.send_text(chat, users[1], "/hu Bob zimo")
    first = bot.process(hand)
    assert "Hand #1" in first.texts[0] and "season" not in first.texts[0]
    ask = bot.say(ann, "/reset", chat).sent[0]
    confirm = next(b for row in ask.buttons for b in row if b["callback_data"].startswith("v1:r"))
    done = "\n".join(bot.press(ann, chat, ask.message_id, confirm["callback_data"]).texts)
    assert (
        "This table's hands up to #1 are in season 1; in season 2 they count from #1 again." in done
    )
    again = "\n".join(bot.process(hand).texts)  # the hand's update delivered again
    assert "recorded already" in again
    assert "It belongs to season 1, archived since: see it with /standings 1." in again
    later = "\n".join(bot.say(ann, "/hu Ann zimo", chat).texts)
    assert "archived" not in later
    assert "Bob +9" in "\n".join(bot.say(ann, "/standings 1", chat).texts)
