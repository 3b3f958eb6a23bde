"""Issue 37, points 1–3 and 11 through the real PTB Application, updates shaped as Telegram
sends them: two members of one first name are two players everywhere (`David`, `David (2)`);
the night's card counts money as /settle money does (each game at its stake, whole cents) and
its caption carries the payments as text; points show at most two decimals; the card's file
is dated in the chat's time zone."""

from __future__ import annotations

from sqlalchemy import text
from sqlalchemy.engine import Engine

from tests.emulator.api import User
from tests.integration.test_bot import ANN, BOB, CAT, GROUP, Harness, bot

__all__ = ["bot"]  # the fixture

DAVID, DAVID2 = User(401, "David", language_code="en"), User(402, "David", language_code="en")


def lines_after(text: str, first: str) -> list[str]:
    """The lines of `text` from the one starting with `first` on."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(first))
    return lines[start:]


async def test_two_members_named_david_are_two_players(bot: Harness) -> None:
    for user in (DAVID, DAVID2):
        bot.api.set_member(-100500, user, "member")
    await bot.say(ANN, "/new mahjong")
    for user in (ANN, BOB, CAT, DAVID):
        await bot.say(user, "/join")
    await bot.say(ANN, "/hu Ann zimo")  # Ann +9, the others -3
    await bot.say(DAVID, "/leave")
    joined = await bot.text(DAVID2, "/join")
    assert "David (2)" in joined  # his Telegram name is another player's: told apart
    won = await bot.text(DAVID2, "/hu me zimo")
    assert "David (2) +9" in won
    standings = await bot.text(BOB, "/standings")
    assert "David (2) +9" in standings and "David -3" in standings
    settle = await bot.text(BOB, "/settle")
    assert "went wrong" not in settle
    assert settle.count("→ David (2)") + settle.count("David → ") >= 2  # both, apart
    await bot.say(ANN, "/set stake mahjong 1")
    money = await bot.text(BOB, "/settle money")
    paid = [line for line in money.splitlines() if "→" in line]
    received: dict[str, int] = {}
    for line in paid:
        who, amount = line.rsplit(" ", 1)
        payer, payee = who.split(" → ")
        received[payer] = received.get(payer, 0) - int(amount)
        received[payee] = received.get(payee, 0) + int(amount)
    assert received == {"Ann": 6, "Bob": -6, "Cat": -6, "David": -3, "David (2)": 9}


async def test_the_card_counts_money_as_settle_money_does(bot: Harness) -> None:
    """Mahjong at 1 a point, poker at 0.1: the card's caption lists /settle money's payments,
    line for line, with its rounding note."""
    await bot.seat("mahjong")  # Ann, Bob, Cat, Dan
    await bot.say(ANN, "/hu Ann zimo")
    await bot.say(ANN, "/new free poker confirm")
    await bot.say(ANN, "/seats Ann Bob Cat")
    await bot.say(ANN, "/s Bob+1.01 Cat+0.02 Ann")
    await bot.say(ANN, "/set stake mahjong 1")
    await bot.say(ANN, "/set stake poker 0.5")
    await bot.say(ANN, "/set stake 0.1")  # the chat's: no game left without one
    money = await bot.text(BOB, "/settle money")
    paid = [line for line in money.splitlines() if "→" in line]
    assert paid and all(len(line.rsplit(" ", 1)[1].partition(".")[2]) in (0, 2) for line in paid)
    assert "rounded to the cent" in money
    [photo] = [e for e in await bot.say(BOB, "/summary") if e.media_kind == "photo"]
    caption = photo.plain_text
    assert [line for line in caption.splitlines() if "→" in line] == paid
    assert "each game at its stake: Mahjong 1 · poker 0.5" in caption
    assert "rounded to the cent" in caption
    assert "kongs and transfers are not hands" in caption


async def test_one_count_of_hands_and_the_tables_told_apart_in_the_csv(bot: Harness) -> None:
    """An undone hand and a transfer are not hands: /summary, /chart and /export count the
    same two and say what a hand is; the CSV tells hand #1 of two tables apart."""
    await bot.seat("mahjong")
    await bot.say(ANN, "/hu Ann zimo")
    await bot.say(ANN, "/hu Bob zimo")
    await bot.say(ANN, "/undo")
    await bot.say(ANN, "/pay Cat Dan 2")
    await bot.say(ANN, "/new 510k confirm")
    await bot.say(ANN, "/seats Ann Bob Cat Dan")
    await bot.say(ANN, "/r Ann=50 Bob=0 Cat=50 Dan=0 out Ann Cat")
    summary = [e for e in await bot.say(BOB, "/summary") if e.media_kind == "photo"]
    chart = [e for e in await bot.say(BOB, "/chart") if e.media_kind == "photo"]
    export = [e for e in await bot.say(BOB, "/export") if e.media_kind == "document"]
    for [sent] in (summary, chart, export):
        assert "2 hand(s)" in sent.plain_text, sent.plain_text
        assert "kongs and transfers are not hands" in sent.plain_text
    content = export[0].content
    assert content is not None
    header, *rows = content.decode("utf-8-sig").splitlines()
    assert header.startswith("time (UTC),table,hand,")
    first_hands = {tuple(row.split(",")[1:3]) for row in rows if row.split(",")[2] == "1"}
    assert first_hands == {("1", "1"), ("2", "1")}


async def test_a_member_renamed_to_a_winners_name_is_told_apart(bot: Harness) -> None:
    """Eve renames herself Bob on Telegram and joins where Bob won: not "Bob → Bob 3"."""
    eve = User(403, "Bob", language_code="en")
    bot.api.set_member(-100500, eve, "member")
    await bot.seat("mahjong")  # Ann, Bob, Cat, Dan
    await bot.say(ANN, "/hu Bob zimo")
    await bot.say(CAT, "/leave")
    assert "Bob (2)" in await bot.text(eve, "/join")
    won = await bot.text(ANN, "/hu Bob pao 3")  # the name is the first Bob's; Eve sits at 3
    assert "Bob +2" in won and "Bob (2) -2" in won
    settle = await bot.text(ANN, "/settle")
    assert "Bob → Bob " not in settle and "Bob (2) → Bob 2" in settle


async def test_two_stored_players_of_one_name_are_shown_apart(
    bot: Harness, sqlite_engine: Engine
) -> None:
    """Two players of one name kept from before (a chat moved, an old join): every view tells
    them apart by player, the older first."""
    await bot.seat("mahjong")
    await bot.say(ANN, "/hu Cat zimo")
    await bot.say(ANN, "/hu Dan pao Ann")
    with sqlite_engine.begin() as db:  # Dan's row named as an old row could be
        db.execute(
            text("UPDATE player SET name = 'Cat' WHERE chat_id = :c AND name = 'Dan'"),
            {"c": GROUP.id},
        )
    standings = await bot.text(BOB, "/standings")
    assert "Cat (2)" in standings and "Cat +9" in standings
    settle = await bot.text(BOB, "/settle")
    assert "went wrong" not in settle and "Cat (2)" in settle
    assert "Cat (2)" in await bot.text(BOB, "/history")
