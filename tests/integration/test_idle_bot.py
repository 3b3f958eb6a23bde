"""Issue 42, point 3 through the real PTB Application on both databases, with a clock the test
controls: the command after six idle hours is answered, then the notice offers last night's
card, whose button posts that night's card (not tonight's); /set idle answers in words."""

from __future__ import annotations

from datetime import timedelta

from tests.integration.test_bot import ANN, BOB, Harness
from tests.integration.test_fees_bot import both, own_engine
from tests.integration.test_idle_tables import Clock

__all__ = ["both", "own_engine"]  # the fixtures


async def test_the_next_evening_closes_the_table_and_offers_last_nights_card(
    both: Harness,
) -> None:
    bot = both
    clock = Clock()
    bot.app.bot_data["service"].now = clock
    await bot.seat("mahjong")  # Ann, Bob, Cat, Dan
    await bot.say(ANN, "/hu Ann zimo")
    await bot.say(ANN, "/hu Bob zimo")
    assert "Set a table with no record closes itself after: 3 h." in await bot.text(
        ANN, "/set idle 3h"
    )
    clock.ahead = timedelta(hours=20)
    entries = await bot.say(BOB, "/hu Cat zimo")
    assert "Hand #1" in entries[0].plain_text  # the new sitting's first hand
    notice = entries[-1]
    assert "that sitting is closed" in notice.plain_text
    assert "No record at this table for 20 h" in notice.plain_text
    [[button]] = notice.buttons
    assert button["callback_data"].startswith("v1:card:")
    posted = await bot.press(BOB, notice, button["callback_data"])
    [photo] = [e for e in posted if e.media_kind == "photo"]
    assert "2 hand(s)" in photo.plain_text  # last night's two hands, not tonight's one
    [tonight] = [e for e in await bot.say(BOB, "/summary") if e.media_kind == "photo"]
    assert "1 hand(s)" in tonight.plain_text
    again = await bot.say(BOB, "/hu Dan zimo")
    assert all("sitting is closed" not in e.plain_text for e in again)  # offered once
