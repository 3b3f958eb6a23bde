"""Issue 26 through the real PTB Application, updates shaped as Telegram sends them: a member
claims a guest (`/iam` is a bot command; `/我是` is not, so it arrives only with a mention),
the claim buttons under /seats, the "did you mean …?" buttons, and an answer to every
command (/leave, /rename, an unknown word)."""

from __future__ import annotations

from tests.emulator.api import OutboxEntry, User
from tests.integration.test_bot import ANN, BOB, CAT, DAN, Harness, bot, plain

__all__ = ["bot"]  # the fixture

LI = User(301, "Li", username="li", language_code="en")


def button(entries: list[OutboxEntry], label: str) -> tuple[OutboxEntry, str]:
    """The message with the button `label`, and its data."""
    for entry in entries:
        for row in entry.buttons:
            for b in row:
                if b["text"] == label:
                    return entry, b["callback_data"]
    raise AssertionError(f"no button {label!r} in {[e.buttons for e in entries]}")


async def test_a_member_claims_the_guest_seated_by_name(bot: Harness) -> None:
    bot.api.set_member(-100500, LI, "member")
    await bot.say(ANN, "/new mahjong")
    seated = await bot.text(ANN, "/seats Ann 小李 阿张 老陈")
    assert "New player(s): 小李, 阿张, 老陈" in seated
    # Before claiming: 我 is not at the table; the reply shows 我 as typed, and the way out.
    refused = await bot.text(LI, "/hu 我 自摸")
    assert "'我': you are not seated" in refused and "/iam 小李" in refused
    assert "“me”" not in refused and "'me'" not in refused
    assert "/iam 小李" in await bot.text(LI, "/join 小李")  # not a dead end
    claimed = await bot.text(LI, "/iam 小李")
    assert "Li is 小李 now" in claimed
    recorded = await bot.text(LI, "/hu 我 自摸")
    assert "Ann → 小李 3" in recorded
    # The Chinese form carries no bot_command entity: Telegram delivers it with a mention.
    assert await bot.deliver(DAN, "/我是 老陈") is None
    said = plain(await bot.deliver(DAN, "@jifen_bot /我是 老陈"))
    assert "Dan is 老陈 now" in said
    assert "老陈 → Ann 3" in await bot.text(DAN, "/hu Ann 自摸")
    taken = await bot.text(CAT, "/iam 小李")
    assert "already linked to someone else" in taken and "/unlink 小李" in taken


async def test_the_claim_buttons_under_seats(bot: Harness) -> None:
    await bot.say(ANN, "/new mahjong")
    entries = await bot.say(ANN, "/seats Ann Bea Cid Dee")
    message, data = button(entries, "I am Bea")
    said = "\n".join(e.plain_text for e in await bot.press(BOB, message, data))
    assert "Bob is Bea now" in said
    before = len(bot.api.callback_answers)
    await bot.press(BOB, message, data)  # a double tap: recorded once
    await bot.press(CAT, message, data)  # another member: refused, clearly
    first, second = bot.api.callback_answers[before : before + 2]
    assert "Bob is Bea" not in (first.text or "")
    assert second.show_alert and "linked to someone already" in (second.text or "")
    # The other guests' buttons stay: Cat claims Cid from the same message.
    kept = bot.api.message(message.chat_id, message.message_id) or {}
    rows = (kept.get("reply_markup") or {}).get("inline_keyboard") or []
    assert [b["text"] for row in rows for b in row] == ["I am Cid", "I am Dee"]
    cid = rows[0][0]["callback_data"]
    assert "Cat is Cid now" in "\n".join(e.plain_text for e in await bot.press(CAT, message, cid))
    assert "Cid → Bea 3" in await bot.text(BOB, "/hu me zimo")


async def test_did_you_mean_buttons(bot: Harness) -> None:
    await bot.seat()  # Ann, Bob, Cat, Dan
    await bot.say(ANN, "/hu Dan zimo")
    entries = await bot.say(ANN, "/seats Ann Bob Cat Dab")
    assert "“Dab” looks like a typo of Dan" in plain(entries)
    assert "Dab" not in await bot.text(ANN, "/players")  # nothing changed yet
    message, data = button(entries, "New player Dab")
    await bot.press(DAN, message, data)  # only the member who asked may answer
    assert bot.api.callback_answers[-1].show_alert
    said = "\n".join(e.plain_text for e in await bot.press(ANN, message, data))
    assert "4. Dab" in said and "New player(s): Dab" in said
    entries = await bot.say(ANN, "/sub Dab Dam")
    message, data = button(entries, "Dan")
    said = "\n".join(e.plain_text for e in await bot.press(ANN, message, data))
    assert "Dan takes Dab's seat" in said


async def test_every_command_gets_an_answer(bot: Harness) -> None:
    await bot.seat()
    assert "Bob leaves the table" in await bot.text(BOB, "/leave")
    assert "Seat 2 is free" in await bot.text(ANN, "/hu Ann zimo")
    assert "Eve takes the free seat" in await bot.text(ANN, "/sub 2 Eve")
    assert "Eve is called Evie now" in await bot.text(ANN, "/rename Eve Evie")
    assert "Only group admins" in await bot.text(CAT, "/merge Evie Dan")
    assert "unknown command /weather" in await bot.text(CAT, "/weather")
