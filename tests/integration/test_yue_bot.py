"""Issue 42, point 2 through the real PTB Application and the Bot API emulator (sendPoll, the
poll_answer updates of members voting), on both databases, with a clock the test controls:
/yue posts a poll that is not anonymous, the answers are kept (a member may change theirs),
"the table is full" is said once, the reminder 30 minutes before names those who said yes and
is sent once (another worker, or after a restart, finds it claimed), /yue lists what is
arranged and /yue cancel calls it off (whoever arranged it, or an admin)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from telegram import Update

from bot.chat.plans import remind
from service.core import Service
from tests.emulator.api import User
from tests.integration.test_bot import ANN, BOB, CAT, DAN, GROUP, Harness
from tests.integration.test_fees_bot import both, own_engine
from tests.integration.test_idle_tables import Clock

__all__ = ["both", "own_engine"]  # the fixtures

EVE = User(105, "Eve", username="eve", language_code="en")


async def vote(bot: Harness, user: User, poll_id: str, options: list[int]) -> list[str]:
    """A member's vote, delivered as Telegram sends it: the texts the bot then sent."""
    seq = bot.api.last_seq
    update = bot.api.answer_poll(user, poll_id, options)
    assert update is not None  # not anonymous: Telegram tells the bot
    bot.api.take_updates()
    await bot.app.process_update(Update.de_json(update, bot.app.bot))
    return [e.plain_text for e in bot.api.outbox_since(seq)]


def friday_8pm_shanghai(now: datetime) -> datetime:
    here = now.astimezone(ZoneInfo("Asia/Shanghai"))
    ahead = (4 - here.weekday()) % 7
    day = here.date() + timedelta(days=ahead)
    at = datetime(day.year, day.month, day.day, 20, 0, tzinfo=ZoneInfo("Asia/Shanghai"))
    if at <= here:
        at += timedelta(days=7)
    return at.astimezone(UTC)


async def test_a_game_arranged_polled_full_and_reminded_once(both: Harness) -> None:
    bot = both
    clock = Clock()
    service: Service = bot.app.bot_data["service"]
    service.now = clock
    await bot.say(ANN, "/set tz Asia/Shanghai")
    entries = await bot.say(BOB, "/yue 周五 20:00 麻将")
    said = entries[0].plain_text
    assert "Arranged: 麻将, Fri" in said and "20:00" in said and "4 make a table" in said
    [(poll_id, found)] = bot.api.polls.items()
    poll = found["poll"]
    assert not poll["is_anonymous"] and "are you coming?" in poll["question"]
    assert [o["text"] for o in poll["options"]] == ["I'm in ✋", "Not this time"]
    assert found["chat_id"] == GROUP.id
    assert await vote(bot, ANN, poll_id, [0]) == []
    assert await vote(bot, BOB, poll_id, [1]) == []  # no…
    assert await vote(bot, BOB, poll_id, [0]) == []  # …then yes: the last answer counts
    assert await vote(bot, CAT, poll_id, [0]) == []
    listed = await bot.text(DAN, "/yue")
    assert "1. Fri" in listed and "coming 3/4: Ann, Bob, Cat" in listed
    full = await vote(bot, DAN, poll_id, [0])
    assert len(full) == 1 and "The table is full" in full[0] and "Ann, Bob, Cat, Dan" in full[0]
    assert await vote(bot, EVE, poll_id, [0]) == []  # said once
    await vote(bot, EVE, poll_id, [])  # Eve takes her vote back
    at = friday_8pm_shanghai(clock())
    assert await remind(bot.app, at - timedelta(minutes=31)) == 0  # not yet
    seq = bot.api.last_seq
    assert await remind(bot.app, at - timedelta(minutes=29)) == 1
    [reminder] = bot.api.outbox_since(seq)
    assert "麻将 at Fri" in reminder.plain_text and "in 29 minutes" in reminder.plain_text
    assert 'href="tg://user?id=101"' in (reminder.text or "")  # Ann is named, to be notified
    assert "Eve" not in reminder.plain_text
    assert await remind(bot.app, at - timedelta(minutes=20)) == 0  # sent once
    restarted = Service(service.engine)  # another worker, or this one after a restart
    assert restarted.due_reminders(at - timedelta(minutes=10)) == []
    assert "Called off" in await bot.text(BOB, "/yue cancel")  # the PostgreSQL chat is shared


async def test_cancel_is_for_whoever_arranged_it_or_an_admin(both: Harness) -> None:
    bot = both
    await bot.say(CAT, "/yue 明天 8点 510k")
    await bot.say(DAN, "/yue fri 8pm")
    listed = await bot.text(BOB, "/yue")
    assert "1. " in listed and "2. " in listed
    refused = await bot.text(DAN, "/yue cancel 1")
    assert "Only whoever arranged it" in refused
    assert "Called off" in await bot.text(CAT, "/yue cancel 1")
    assert "Called off" in await bot.text(ANN, "/yue cancel")  # Ann is the group's creator
    assert "No game is arranged here" in await bot.text(BOB, "/yue")
    assert "give the time of the game" in await bot.text(BOB, "/yue 周五")


async def test_the_reminder_closes_last_nights_table(both: Harness) -> None:
    """A table nobody closed closes at the next reminder too: the players gather again."""
    bot = both
    await bot.seat("mahjong")
    await bot.say(ANN, "/hu Ann zimo")
    entries = await bot.say(BOB, "/yue 明天 20:00 麻将")
    assert "Arranged" in entries[0].plain_text
    await vote(bot, CAT, next(iter(bot.api.polls)), [0])
    service: Service = bot.app.bot_data["service"]
    assert service.due_reminders(datetime.now(UTC) + timedelta(days=3)) == []  # over by then
    seq = bot.api.last_seq
    now = datetime.now(UTC)
    tomorrow_8pm = datetime(now.year, now.month, now.day, 20, tzinfo=UTC) + timedelta(days=1)
    assert await remind(bot.app, tomorrow_8pm - timedelta(minutes=30)) == 1
    texts = [e.plain_text for e in bot.api.outbox_since(seq)]
    assert "Cat" in texts[0] and "in 30 minutes" in texts[0]
    assert "that sitting is closed" in texts[1]
    entries = await bot.say(ANN, "/hu Bob zimo")
    assert "Hand #1" in entries[0].plain_text  # the new sitting's
    assert all("sitting is closed" not in e.plain_text for e in entries)
