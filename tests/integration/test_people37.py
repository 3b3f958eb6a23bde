"""Issue 37, points 7–9, through the real PTB Application (updates as Telegram sends them):
"did you mean …?" only where a typo is likely; /sub seating a guest offers the claim button;
/join at a full table points to /sub; refusals whose examples are built from the names at the
table, in the chat's language, with one colon; [No] under a repeat says what it dropped."""

from __future__ import annotations

from service.seating import likely_typo
from tests.emulator.api import User
from tests.integration.test_bot import ANN, BOB, CAT, DAN, ZHANG, Harness, bot, plain
from tests.integration.test_people_bot import button

__all__ = ["bot"]  # the fixture

XIAOLI = User(401, "小李", language_code="zh-hans")


async def zh_table(bot: Harness, *names: str) -> None:
    """A Chinese chat (its first command's sender writes Chinese) with a mahjong table."""
    await bot.say(ZHANG, "/new 麻将")
    await bot.say(ZHANG, "/seats " + " ".join(names))


async def test_names_one_character_apart_are_two_people(bot: Harness) -> None:
    """Point 7: 小红 after 小周 played is a new player, no question; 小舟 (the same pinyin as
    小周), Daev (one letter from Dave) and "Da ve" (spacing) are asked about."""
    await zh_table(bot, "张三", "小周", "老陈", "Dave")
    await bot.say(ZHANG, "/hu 小周 自摸")
    await bot.say(ZHANG, "/sub 小周 老王")
    said = await bot.text(ZHANG, "/sub 老陈 小红")
    assert "小红" in said and "打错" not in said and "小周 吗" not in said
    assert "小红" in await bot.text(ZHANG, "/players")
    assert "老王 胡" in await bot.text(ZHANG, "/hu 老王 自摸")  # no question holds the table
    asked = await bot.say(ZHANG, "/sub 小红 小舟")
    assert "你是说 小周 吗" in plain(asked)
    await bot.say(ZHANG, "/sub Dave 阿明")  # Dave played, and left: a name like his is asked
    assert "你是说 Dave 吗" in plain(await bot.say(ZHANG, "/sub 老王 Daev"))
    # Spacing (a Telegram name "Zoe Q" typed as ZoeQ) and case; equal names are one player.
    assert likely_typo("ZoeQ", "Zoe Q") and likely_typo("zoeq", "Zoe Q")
    assert not likely_typo("zoe q", "Zoe Q") and not likely_typo("老陈", "老程")


async def test_sub_offers_the_claim_and_join_at_a_full_table_points_to_sub(
    bot: Harness,
) -> None:
    """Point 8: /sub seating a guest offers [I am …] and /iam as /seats does; /join at a full
    table shows /sub with the names at the table."""
    await bot.seat()  # Ann, Bob, Cat, Dan
    entries = await bot.say(ANN, "/sub Dan Zoe")
    said = plain(entries)
    assert "Zoe takes Dan's seat" in said and "/iam" in said
    message, data = button(entries, "I am Zoe")
    zoe = User(501, "Zoe Q", language_code="en")
    bot.api.set_member(-100500, zoe, "member")
    assert "Zoe Q is Zoe now" in plain(await bot.press(zoe, message, data))
    full = await bot.text(DAN, "/join")
    assert "/sub <player> <name>" in full and "/sub Zoe Dan" in full
    assert "/seats" not in full


async def test_refusal_examples_are_built_from_the_names_at_the_table(bot: Harness) -> None:
    """Point 9: /leave with a kong suggests someone else for the seat (never /sub 小李 小李);
    an unclaimed guest's /leave offers /iam of the guest they likely are; one colon."""
    await bot.say(XIAOLI, "/new 麻将")
    await bot.say(XIAOLI, "/seats 我 阿张 小周 老陈")
    await bot.say(XIAOLI, "/gang 我 an")
    refused = await bot.text(XIAOLI, "/leave")
    assert "/sub 小李 " in refused and "/sub 小李 小李" not in refused
    assert "：\n请这样写" not in refused and "：\n/sub" in refused.replace("：\n ", "：\n")
    zhou = User(402, "小周", language_code="zh-hans")
    bot.api.set_member(-100500, zhou, "member")
    refused = await bot.text(zhou, "/leave")
    assert "/iam 小周" in refused and "/iam 小李" not in refused
    # /iam by the member whose Telegram name is the guest's: said sensibly.
    claimed = await bot.text(zhou, "/iam 小周")
    assert "小周 现在就是 小周" not in claimed and "你现在就是这里的 小周" in claimed


async def test_an_incomplete_510k_report_names_who_is_missing_in_chinese(bot: Harness) -> None:
    """Point 9: `出 1 2` (two opponents) says who may have gone out next, in Chinese (出, not
    out), with the typed command completed as the example."""
    await bot.say(ZHANG, "/new 510k")
    await bot.say(ZHANG, "/seats 张三 小红 老王 小周")
    refused = await bot.text(ZHANG, "/r 1=30 2=20 3=40 4=10 出 1 2")
    assert "老王 / 小周" in refused  # 张三's partner or 小红's
    assert "/r 1=30 2=20 3=40 4=10 出 1 2 老王" in refused
    assert " out " not in refused and "：\n请这样写" not in refused
    usage = await bot.text(ZHANG, "/r 1=30 2=20 3=40 出 1 3")
    assert "出 A C" in usage and "out A C" not in usage


async def test_no_under_a_repeat_says_what_was_not_recorded(bot: Harness) -> None:
    """Point 9: [No] under the two-minute rule's question leaves the question in place with a
    line saying the command above was not recorded."""
    await bot.seat()
    await bot.say(ANN, "/hu Ann pao Bob")
    asked = await bot.say(BOB, "/hu Ann pao Bob")
    message, data = button(asked, "No")
    await bot.press(CAT, message, data)
    kept = bot.api.message(message.chat_id, message.message_id) or {}
    assert "not recorded" in kept.get("text", "") and "/hu Ann pao Bob" in kept.get("text", "")
    assert not (kept.get("reply_markup") or {}).get("inline_keyboard")
    assert "#2" not in await bot.text(DAN, "/history")
