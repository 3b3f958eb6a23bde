"""The same result typed twice (the two-minute rule), /undo by /history's number, the fifth
kong, the 门清 reminder once a season, the chat's own language, the glued /r and the /r at a
mahjong table — through the real PTB Application, updates built as Telegram sends them."""

from __future__ import annotations

from datetime import timedelta

import pytest

from service import insight, views
from service.requests import Stats
from storage.gateway import ledger
from storage.models import utcnow
from storage.unit_of_work import reading
from tests.emulator.api import OutboxEntry, User
from tests.integration import test_bot
from tests.integration.test_bot import ANN, BOB, CAT, DAN, GROUP, ZHANG, Harness
from tests.integration.test_evening_rules import buttons, wizard_to_flags

bot = test_bot.bot  # the fixture: the real Application over the emulated Bot API


class Clock:
    """The ledger's clock, moved by hand (each record is stamped by `storage.gateway.ledger`)."""

    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self) -> object:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    found = Clock()
    monkeypatch.setattr(ledger, "utcnow", found)
    return found


def button(entries: list[OutboxEntry], label: str) -> tuple[OutboxEntry, str]:
    """The message and callback data of the button labelled `label`."""
    for entry in entries:
        for row in entry.buttons:
            for b in row:
                if b["text"] == label:
                    return entry, str(b["callback_data"])
    raise AssertionError(f"no button {label!r} in {[e.plain_text for e in entries]}")


async def hands(bot: Harness) -> list[str]:
    """/history's hand lines (`#1 …`), oldest first."""
    text = await bot.text(ANN, "/history 50")
    return [line for line in text.splitlines() if line.startswith("#")]


async def seat_510k(bot: Harness) -> None:
    await bot.say(ANN, "/new 510k")
    await bot.say(ANN, "/seats Ann Bob Cat Dan")


REPORT = "/r Ann=60 Bob=0 Cat=40 Dan=0 out Ann Cat"


async def test_a_510k_report_typed_twice_asks_and_records_nothing(
    bot: Harness, clock: Clock
) -> None:
    await seat_510k(bot)
    await bot.say(ANN, REPORT)
    clock.now += timedelta(seconds=40)
    asked = await bot.say(
        BOB, "/r Bob=0 Ann=60 Dan=0 Cat=40 out 1 3"
    )  # the same, written another way
    text = asked[0].plain_text
    assert "same as hand #1, recorded 40 s ago by Ann" in text and "Nothing is recorded" in text
    assert [[b["text"] for b in row] for row in asked[0].buttons] == [["Record again", "No"]]
    assert len(await hands(bot)) == 1
    entry, data = button(asked, "No")
    await bot.press(BOB, entry, data)
    assert len(await hands(bot)) == 1  # [No]: dropped
    assert (await bot.text(CAT, "/standings")).count("+120") == 2


async def test_record_again_records_once_even_pressed_twice_by_two(
    bot: Harness, clock: Clock
) -> None:
    await seat_510k(bot)
    await bot.say(ANN, REPORT)
    asked = await bot.say(BOB, REPORT)
    entry, data = button(asked, "Record again")
    recorded = await bot.press(BOB, entry, data)
    assert any("510K hand #2" in e.plain_text for e in recorded)
    await bot.press(CAT, entry, data)  # pressed again, by someone else: nothing more
    assert bot.api.callback_answers[-1].show_alert
    lines = await hands(bot)
    assert len(lines) == 2 and all(REPORT in line for line in lines)
    assert "1. Ann +240" in await bot.text(ANN, "/standings")


async def test_no_question_after_two_minutes_an_undo_or_at_another_table(
    bot: Harness, clock: Clock
) -> None:
    await seat_510k(bot)
    await bot.say(ANN, REPORT)
    clock.now += timedelta(minutes=2, seconds=1)
    late = await bot.text(BOB, REPORT)
    assert "510K hand #2" in late  # two minutes passed: a real second hand
    await bot.say(ANN, "/undo")
    again = await bot.text(BOB, REPORT)  # the last record was undone: no question
    assert "510K hand #3" in again
    await bot.say(ANN, "/new mahjong")
    await bot.say(ANN, "/hu Ann zimo")
    asked = await bot.text(BOB, "/hu 1 自摸")  # the same hand, in other words
    assert "same as hand #1" in asked
    assert "Kong recorded" in await bot.text(CAT, "/gang Cat an")
    assert "Kong recorded" in await bot.text(DAN, "/gang Cat an")  # two like kongs: two kongs
    assert "Hand #2" in await bot.text(DAN, "/hu Ann zimo")  # a kong came between: no question


async def test_a_repeated_transfer_and_free_round_ask_too(bot: Harness, clock: Clock) -> None:
    await bot.say(ANN, "/new free 斗地主")
    for user in (ANN, BOB, CAT):
        await bot.say(user, "/join")
    await bot.say(ANN, "/s Ann+30 Bob-10 Cat")
    assert "same as 斗地主 round #1" in await bot.text(BOB, "/s Ann+30 Bob-10 Cat-20")
    await bot.say(ANN, "/pay Bob Ann 5")
    assert "same as transfer #2" in await bot.text(BOB, "/pay Bob Ann 5")
    assert "Transfer #3" in await bot.text(BOB, "/pay Bob Ann 6")  # another amount: recorded


async def test_the_question_survives_a_restart(bot: Harness, clock: Clock) -> None:
    """Nothing is kept for the question but its button: a new Application answers it."""
    await seat_510k(bot)
    await bot.say(ANN, REPORT)
    asked = await bot.say(BOB, REPORT)
    await bot.app.shutdown()
    await bot.app.post_shutdown(bot.app)
    await bot.app.initialize()
    await bot.app.post_init(bot.app)
    await bot.press(BOB, *button(asked, "Record again"))
    assert len(await hands(bot)) == 2


async def test_the_button_wizard_asks_too(bot: Harness, clock: Clock) -> None:
    """Typed first, then the same hand tapped in the /hu wizard: the question, not hand #2."""
    await bot.seat()
    await bot.say(ANN, "/hu Ann pao Bob")
    screen = await wizard_to_flags(bot, "点炮 on a discard", "鸡胡 plain hand")
    (screen,) = await bot.press(ANN, screen, buttons(screen)["Done"])
    entries = await bot.press(ANN, screen, buttons(screen)["Record"])
    assert any("same as hand #1" in e.plain_text for e in entries), entries
    assert len(await hands(bot)) == 1


# --- /undo <n>: the number /history shows --------------------------------------------------


async def test_undo_n_finds_the_hand_history_numbers_after_switching_games(
    bot: Harness, clock: Clock
) -> None:
    await bot.seat()
    await bot.say(ANN, "/hu Ann zimo")
    await bot.say(ANN, "/hu Bob zimo")
    await bot.say(ANN, "/new 510k")
    await bot.say(ANN, REPORT)
    undone = await bot.text(ANN, "/undo 2")  # only the mahjong table has a #2: that one
    assert "Undone: hand #2" in undone
    asked = await bot.say(ANN, "/undo 1")  # both tables have a #1: which?
    text = asked[0].plain_text
    assert "Several tables of this season have a #1" in text
    assert "Mahjong table" in text and "510K table" in text
    labels = [b["text"] for row in asked[0].buttons for b in row]
    assert labels == ["Undo 1", "Undo 2", "Cancel"]
    pressed = await bot.press(ANN, *button(asked, "Undo 1"))  # the mahjong table's, listed first
    assert "Undone: hand #1 — /hu Ann zimo" in pressed[-1].plain_text
    standings = await bot.text(ANN, "/standings")
    mahjong, k510 = standings.split("510K scores:")
    assert "+9" not in mahjong and "1. Ann +120" in k510


async def test_undo_confirm_with_nothing_waiting_refuses(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/hu Ann zimo")
    refused = await bot.text(BOB, "/undo confirm")
    assert "Nothing is waiting for a confirmation" in refused
    assert "1. Ann +9" in await bot.text(ANN, "/standings")  # nothing was undone


# --- kongs, reminders ------------------------------------------------------------------------


async def test_a_fifth_kong_is_refused(bot: Harness) -> None:
    await bot.seat()
    for i in range(4):
        said = await bot.text(ANN, "/gang Cat an" if i % 2 == 0 else "/gang Cat ming Ann")
        assert "Kong recorded" in said, said
    refused = await bot.text(BOB, "/gang Cat an")
    assert "Cat already has 4 kongs in this hand, the most a hand can hold" in refused
    assert "Kong recorded" in await bot.text(BOB, "/gang Dan an")  # others still may


async def test_the_menqing_reminder_comes_once_per_player_and_season(
    bot: Harness, clock: Clock
) -> None:
    await bot.seat()
    first = await bot.text(ANN, "/hu Ann zimo")
    assert "not 门清" in first and "scored as not concealed" in first
    second = await bot.text(ANN, "/hu Ann pao Bob")
    assert "not 门清" in second and "scored as not concealed" not in second
    other = await bot.text(ANN, "/hu Bob zimo")
    assert "scored as not concealed" in other  # Bob's first
    said = await bot.text(ANN, "/hu Ann zimo mq")
    assert "not 门清" not in said
    await bot.say(ANN, "/reset confirm")
    await bot.say(ANN, "/new mahjong")
    for user in (ANN, BOB, CAT, DAN):
        await bot.say(user, "/join")
    assert "scored as not concealed" in await bot.text(ANN, "/hu Ann zimo")  # a new season


# --- the chat's language ---------------------------------------------------------------------


async def test_the_first_command_sets_the_chat_language_and_later_senders_keep_it(
    bot: Harness,
) -> None:
    chen = User(301, "Chen", language_code="en")
    bot.api.set_member(GROUP.id, chen, "member")
    assert "新开一桌" in await bot.text(ZHANG, "/new mahjong")
    joined = await bot.text(chen, "/join")  # an English phone in a Chinese group
    assert "入座" in joined or "座" in joined, joined
    for user in (ANN, BOB, CAT):
        await bot.say(user, "/join")
    refused = await bot.text(chen, "/hu nobody zimo")
    assert "在座的没有" in refused
    entries = await bot.say(chen, "/hu Chen zimo")
    assert [b["text"] for row in entries[0].buttons for b in row] == ["撤销"]
    assert "已撤销" in await bot.text(chen, "/undo")
    await bot.say(ANN, "/set lang en")
    assert "Standings" in await bot.text(ZHANG, "/standings")


async def test_a_refused_first_command_keeps_no_language(bot: Harness) -> None:
    refused = await bot.text(ZHANG, "/new mahjong mahjong")  # answered in the sender's language
    assert refused.startswith("⚠️") and "写了两种游戏" in refused, refused
    assert "New table" in await bot.text(ANN, "/new mahjong")  # the first command that counts
    assert "Standings" in await bot.text(ZHANG, "/standings")


# --- /r ----------------------------------------------------------------------------------------


async def test_glued_points_are_read_and_a_bare_number_gets_a_precise_hint(bot: Harness) -> None:
    await seat_510k(bot)
    said = await bot.text(ANN, "/r Ann60 Bob0 Cat40 Dan0 out Ann Cat")
    assert "510K hand #1" in said and "Net this hand: Ann +120" in said
    hint = await bot.text(ANN, "/r 160 Bob=0 Cat=40 Dan=0 out Ann Cat")
    assert "'160': write the player (seat or name), '=' and the points, like 1=60" in hint
    wrong = await bot.text(ANN, "/r Ann63 Bob=0 Cat=40 Dan=0 out Ann Cat")
    assert "write the player, '=' and the points, like Ann=63" in wrong


async def test_r_at_a_mahjong_table_says_how_to_open_510k(bot: Harness) -> None:
    await bot.seat()
    said = await bot.text(ANN, "/r Ann=60 Bob=0 Cat=40 Dan=0 out Ann Cat")
    assert "This is a 510K command, and the open table plays mahjong" in said
    assert "/new 510k" in said


async def test_join_at_a_full_table_is_one_sentence(bot: Harness) -> None:
    await bot.seat()
    said = await bot.text(ZHANG, "/join")
    assert "The table is full: all 4 seats are taken, so 张三 cannot join. To play in" in said


async def test_the_seasons_count_live_hands_as_stats_does(bot: Harness) -> None:
    """The Seasons list (the Mini App's page and /seasons read it) counts what /stats counts:
    hands not undone."""
    await bot.seat()
    for how in ("zimo", "pao Bob", "zimo mq"):
        await bot.say(ANN, f"/hu Ann {how}")
    await bot.say(ANN, "/undo")
    seasons = await bot.text(ANN, "/seasons")
    assert ", 2 hands" in seasons, seasons
    service = bot.app.bot_data["service"]
    with reading(service.engine) as db:
        [line] = views.seasons(db, GROUP.id).seasons
        stats = insight.stats(db, GROUP.id, Stats())
    assert line.hands == stats.mahjong_hands == 2
