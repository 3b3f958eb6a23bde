"""Issue 37, points 5 and 6, through the real PTB Application (updates as Telegram sends them):
a hand typed again within two minutes with one flag more or less, or a 510K report of the same
finishing order with other points, asks first and shows the difference — [Replace #N] /
[Record both] / [No]; one question's answer records once, whoever gives it and how often."""

from __future__ import annotations

from tests.emulator.api import User
from tests.integration.test_bot import ANN, BOB, CAT, DAN, Harness, bot, plain
from tests.integration.test_people_bot import button

__all__ = ["bot", "typed"]  # the fixture; a helper for tests that mean every hand they type


async def typed(bot: Harness, user: User, text: str, answer: str = "Record both") -> str:
    """`text` recorded as meant: a near repeat's question is answered (`answer`), and the
    reply to the answer returned (else the reply itself)."""
    said = await bot.say(user, text)
    if "Nothing is recorded yet" not in plain(said):
        return plain(said)
    message, data = button(said, answer)
    return plain(await bot.press(user, message, data))


async def standings(bot: Harness) -> str:
    return await bot.text(ANN, "/standings")


async def test_a_flag_more_asks_and_replace_corrects_the_first_in_place(bot: Harness) -> None:
    await bot.seat()
    first = plain(await bot.say(ANN, "/hu Ann pao Bob pph"))
    assert "#1" in first
    asked = await bot.say(BOB, "/hu Ann pao Bob pph qys")
    text = plain(asked)
    assert "hand #1" in text and "qys" in text and "Nothing is recorded yet" in text
    assert "adds qys" in text
    entry, replace = button(asked, "Replace #1")
    button(asked, "Record both")
    button(asked, "No")
    assert "1 hand" in await standings(bot) or "#2" not in await bot.text(ANN, "/history")
    done = plain(await bot.press(CAT, entry, replace))
    assert "#1 corrected" in done and "added qys" in done  # issue 38: #1 keeps its number
    history = await bot.text(ANN, "/history")
    assert "qys" in history and "1 hand" not in history
    # Ann won 碰碰胡 清一色 from Bob only once: Bob pays the qys pph hand, and only that.
    table = await standings(bot)
    assert "Bob" in table
    # Another member's press, and a second press: nothing more (one answer records once).
    again = await bot.press(DAN, entry, replace)
    assert "#3" not in plain(again)
    both = button(asked, "Record both")[1]
    assert "#3" not in plain(await bot.press(ANN, entry, both))
    history = await bot.text(ANN, "/history")
    assert history.count("/hu Ann pao Bob") == 1 and "#1 ✎" in history and "#2" not in history


async def test_record_both_keeps_the_first_and_adds_the_second(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/hu Dan zimo")
    asked = await bot.say(DAN, "/hu Dan zimo mq")
    text = plain(asked)
    assert "adds mq" in text
    entry, both = button(asked, "Record both")
    recorded = plain(await bot.press(BOB, entry, both))
    assert "#2" in recorded and "mq" in recorded
    # The other answer afterwards records nothing more.
    replace = button(asked, "Replace #1")[1]
    assert "#3" not in plain(await bot.press(CAT, entry, replace))


async def test_other_winner_or_payer_is_no_near_repeat(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/hu Ann pao Bob")
    assert "#2" in plain(await bot.say(BOB, "/hu Ann pao Cat"))
    assert "#3" in plain(await bot.say(CAT, "/hu Bob zimo"))


async def test_two_members_answering_record_again_record_it_once(bot: Harness) -> None:
    """Point 6: two questions about the same record, both answered: one more hand, not two."""
    await bot.seat()
    await bot.say(ANN, "/hu Ann pao Bob")
    first = await bot.say(BOB, "/hu Ann pao Bob")
    second = await bot.say(CAT, "/hu Ann pao Bob")
    entry1, again1 = button(first, "Record again")
    entry2, again2 = button(second, "Record again")
    assert "#2" in plain(await bot.press(DAN, entry1, again1))
    late = plain(await bot.press(CAT, entry2, again2))
    assert "#3" not in late
    assert "#3" not in await bot.text(ANN, "/history")


async def test_a_510k_report_of_the_same_order_with_other_points_asks(bot: Harness) -> None:
    await bot.seat("510k")
    await bot.say(ANN, "/r Ann=60 Bob=0 Cat=40 Dan=0 out Ann Cat")
    asked = await bot.say(BOB, "/r Ann=50 Bob=10 Cat=40 Dan=0 out Ann Cat")
    text = plain(asked)
    assert "Ann=50" in text and "Ann=60" in text
    entry, replace = button(asked, "Replace #1")
    done = plain(await bot.press(CAT, entry, replace))
    assert "#1 corrected" in done  # in place (issue 38): #1 keeps its number
    # Another finishing order is another hand: recorded at once.
    assert "#2" in plain(await bot.say(CAT, "/r Ann=50 Bob=10 Cat=40 Dan=0 out Cat Ann"))
