"""Free scoring through the real PTB Application: /new free, /s, /pay, their buttons, undo,
redelivery, standings, settle, stats and export — updates built as Telegram sends them."""

from __future__ import annotations

from telegram import Update

from tests.integration import test_bot
from tests.integration.test_bot import (
    ANN,
    BOB,
    CAT,
    DAN,
    GROUP,
    PLAYERS,
    ZHANG,
    Harness,
    undo_button,
)

bot = test_bot.bot  # the fixture: the real Application over the emulated Bot API


async def seat_free(bot: Harness, name: str = "斗地主", n: int = 3) -> None:
    await bot.say(ANN, f"/new free {name}")
    for user in PLAYERS[:n]:
        await bot.say(user, "/join")


async def test_a_round_with_a_balancing_player_shows_scores_totals_and_undo(bot: Harness) -> None:
    await seat_free(bot)
    entries = await bot.say(ANN, "/s Ann+30 Bob-10 Cat")
    text = entries[0].plain_text
    assert "斗地主, round #1" in text
    assert "Scores this round: Ann +30 · Bob -10 · Cat -20" in text
    assert "Totals now: Ann +30 · Bob -10 · Cat -20" in text
    entries = await bot.say(BOB, "/s Ann -5 Bob +5")  # the sign as its own word; Cat scores 0
    assert "Totals now: Ann +25 · Bob -5 · Cat -20" in entries[0].plain_text
    standings = (await bot.text(CAT, "/standings")).splitlines()
    assert standings[1:] == ["Free points · 斗地主:", "1. Ann +25", "2. Bob -5", "3. Cat -20"]
    entry, data = undo_button(entries)
    undone = "\n".join(e.plain_text for e in await bot.press(CAT, entry, data))
    assert "Undone: 斗地主 round #2" in undone
    assert "1. Ann +30" in await bot.text(CAT, "/standings")


async def test_bad_rounds_and_transfers_say_what_is_wrong_and_change_nothing(
    bot: Harness,
) -> None:
    await seat_free(bot)
    cases = {
        "/s Ann+30 Bob-10": "must add up to 0",
        "/s Ann+30 Bob Cat": "only one player can be written without a number",
        "/s Ann+30.125 Bob": "at most two decimals",
        "/s Ann+30 Zed": "No seated player 'Zed'",
        "/s Ann+30 Ann-30": "named twice",
        "/s Ann 30 Bob": "write the sign",
        "/s Ann+0 Bob-0": "nothing to record",
        "/s Ann+9999999 Bob": "at most 1000000",
        "/pay Ann Ann 5": "cannot pay themselves",
        "/pay Ann Bob 0": "more than 0",
        "/pay Ann Bob -5": "not an amount",
        "/pay Ann Bob 5.555": "at most two decimals",
        "/pay Ann Bob": "give the payer, the payee and the amount",
        "/pay Ann Bob 1e5": "not an amount",
    }
    for command, problem in cases.items():
        text = await bot.text(ANN, command)
        assert problem in text, (command, text)
        assert "Write it like this" in text or "Seated:" in text, command
    assert "No hands recorded yet." in await bot.text(ANN, "/standings")


async def test_chinese_forms_and_full_width_signs(bot: Harness) -> None:
    await seat_free(bot)
    await bot.say(ANN, "/s Ann赢30 Bob输10 Cat")
    await bot.say(ANN, "/s Ann＋1.50 Bob－1.50")
    await bot.say(ANN, "/s Ann −2 Bob +2")
    await bot.say(ANN, "/set lang zh")
    standings = await bot.text(ZHANG, "/standings")
    assert "1. Ann +29.5" in standings and "2. Bob -9.5" in standings
    assert "自由记分 · 斗地主" in standings


async def test_pay_at_a_mahjong_table_moves_mahjong_points_and_is_undone_like_a_hand(
    bot: Harness,
) -> None:
    await bot.seat()
    await bot.say(CAT, "/hu Ann zimo")
    entries = await bot.say(DAN, "/pay Bob Dan 2.5")
    text = entries[0].plain_text
    assert "Transfer #2" in text and "Bob → Dan 2.5 · Mahjong points" in text
    assert "Totals now: Ann +9 · Bob -5.5 · Cat -3 · Dan -0.5" in text
    standings = (await bot.text(DAN, "/standings")).splitlines()
    assert standings[1] == "Mahjong points:" and "4. Bob -5.5" in standings
    history = await bot.text(DAN, "/history")
    assert "#2" in history and "Bob → Dan 2.5" in history
    entry, data = undo_button(entries)
    undone = "\n".join(e.plain_text for e in await bot.press(ANN, entry, data))
    assert "Undone: transfer #2" in undone
    assert "2. Bob -3" in await bot.text(DAN, "/standings")


async def test_a_kong_pending_across_a_transfer_still_settles_with_its_hand(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/gang Ann an")
    await bot.say(BOB, "/pay Cat Dan 1")
    text = await bot.text(CAT, "/hu Ann zimo")
    assert "Net this hand: Ann +12 · Bob -4 · Cat -4 · Dan -4" in text


async def test_a_redelivered_round_is_recorded_once(bot: Harness) -> None:
    await seat_free(bot)
    update = bot.api.send_text(GROUP, ANN, "/s Ann+10 Bob")
    bot.api.take_updates()
    for _ in range(2):
        await bot.app.process_update(Update.de_json(update, bot.app.bot))
    assert "1. Ann +10" in await bot.text(ANN, "/standings")


async def test_two_free_games_are_two_units_and_settle_squares_each(bot: Harness) -> None:
    await seat_free(bot, "斗地主")
    await bot.say(ANN, "/s Ann+30 Bob-10 Cat")
    await bot.say(ANN, "/new free poker")
    await bot.say(ANN, "/seats Ann Bob Cat Dan Eve")
    await bot.say(ANN, "/s Eve+40 Dan-40")
    await bot.say(ANN, "/pay Ann Eve 1.25")
    standings = (await bot.text(ANN, "/standings")).splitlines()
    assert standings.index("Free points · poker:") < standings.index(
        "Free points · 斗地主:"
    )  # by name
    settle = await bot.text(ANN, "/settle")
    assert "Bob → Ann 10" in settle and "Cat → Ann 20" in settle
    assert "Dan → Eve 40" in settle and "Ann → Eve 1.25" in settle
    stats = await bot.text(ANN, "/stats")
    assert "Free points · poker · 1 round(s)" in stats
    assert "rounds 1 · won 1 · biggest +40" in stats
    (file,) = [e for e in await bot.say(BOB, "/export") if e.media_kind == "document"]
    assert file.content is not None
    rows = file.content.decode("utf-8-sig").splitlines()
    assert any(",free:poker,Ann,Eve,1.25,pay," in row for row in rows)
    assert any(",free:斗地主,(table),Ann,30,score," in row for row in rows)


async def test_a_round_by_buttons(bot: Harness) -> None:
    await seat_free(bot, "poker", n=4)
    screen = (await bot.say(BOB, "/s"))[0]
    for label in ("Ann 0", "+10", "+10", "+5", "Dan 0", "-5", "Cat 0", "= rest", "Record"):
        data = next(b["callback_data"] for row in screen.buttons for b in row if b["text"] == label)
        assert len(data.encode()) <= 64
        entries = await bot.press(BOB, screen, data)
        screen = next((e for e in entries if e.message_id == screen.message_id), screen)
    text = "\n".join(e.plain_text for e in entries)
    assert "/s Ann+25 Cat-20 Dan-5" in text
    assert "Totals now: Ann +25 · Bob 0 · Cat -20 · Dan -5" in text


async def test_the_round_buttons_need_a_free_table(bot: Harness) -> None:
    assert "free table" in await bot.text(ANN, "/s")
    await bot.seat()
    assert "free table" in await bot.text(ANN, "/s")
    assert "This is a free scoring command" in await bot.text(ANN, "/s Ann+1 Bob")


async def test_record_tapped_twice_records_the_round_once(bot: Harness) -> None:
    await seat_free(bot, "poker", n=2)
    screen = (await bot.say(ANN, "/s"))[0]
    for label in ("Ann 0", "+5", "Bob 0", "= rest"):
        data = next(b["callback_data"] for row in screen.buttons for b in row if b["text"] == label)
        entries = await bot.press(ANN, screen, data)
        screen = next((e for e in entries if e.message_id == screen.message_id), screen)
    record = next(
        b["callback_data"] for row in screen.buttons for b in row if b["text"] == "Record"
    )
    # Two taps (two players, or one impatient one) reach the bot before either is answered.
    taps = [bot.api.press_button(GROUP, user, screen.message_id, record) for user in (ANN, BOB)]
    bot.api.take_updates()
    seq = bot.api.last_seq
    for tap in taps:
        await bot.app.process_update(Update.de_json(tap, bot.app.bot))
    text = "\n".join(e.plain_text for e in bot.api.outbox_since(seq))
    assert "recorded already" in text
    assert "1. Ann +5" in await bot.text(ANN, "/standings")


async def test_a_game_name_in_another_case_is_the_same_unit(bot: Harness) -> None:
    await seat_free(bot, "Poker", n=2)
    await bot.say(ANN, "/s Ann+1 Bob")
    await seat_free(bot, "POKER", n=2)
    assert "Table: free scoring (any game) · Poker." in await bot.text(ANN, "/players")
    await bot.say(ANN, "/s Ann+1 Bob")
    standings = (await bot.text(ANN, "/standings")).splitlines()
    assert standings[1:] == ["Free points · Poker:", "1. Ann +2", "2. Bob -2"]


async def test_stats_show_a_transfer_at_a_table_with_no_hand_yet(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/pay Bob Ann 4")
    stats = await bot.text(ANN, "/stats")
    assert "No hands recorded yet." not in stats
    assert "Mahjong · 0 hand(s)" in stats and "Ann +4" in stats and "Bob -4" in stats
