"""The bot as a process (``python -m bot.cli run``) against the Bot API emulator on loopback.

Long polling and webhook mode, whole evenings of mahjong and 510K, Undo buttons, a restart on
the same database, the admin flow (/reset), forged callbacks, languages, redelivered updates
and the bot token's absence from the log.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from tests.botprocess import REPO
from tests.e2e.conftest import (
    BOT_USER,
    CJK,
    REPLY_TIMEOUT,
    TOKEN,
    WEBHOOK_SECRET,
    Bots,
    Group,
    balances,
    button_data,
    buttons,
    k510_scores,
    message_update,
    nums,
    post_update,
    settle,
    transfers,
    user,
    wait_until,
)

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(120)]

WANG, LI, ZHANG, CHEN = (
    user("老王", 1001),
    user("小李", 1002),
    user("阿张", 1003),
    user("Chen", 1004, username="chen_plays"),
)
ALICE, BOB = user("Alice", 1101, username="alice_admin"), user("Bob", 1102)
UNDO = "v1:undo:"


def sorted_transfers(text: str) -> list[tuple[str, str, Fraction]]:
    return sorted(transfers(text))


def seat_mahjong_table(group: Group, players: tuple[dict, ...]) -> None:
    """/new mahjong and four /join."""
    assert "New table: mahjong" in group.text(players[0], "/new mahjong")
    for player in players:
        reply = group.text(player, "/join")
        assert f"{player['first_name']} sits down." in reply
    seats = [line.removesuffix(" 🀄dealer") for line in reply.splitlines()[1:]]
    assert seats == [f"{i}. {p['first_name']}" for i, p in enumerate(players, 1)], reply


# ---------------------------------------------------------------- 1. polling, undo, restart


def test_polling_evening_undo_button_and_restart(bots: Bots) -> None:
    bot, group = bots.start(), bots.group()
    seat_mahjong_table(group, (WANG, LI, ZHANG, CHEN))

    # 老王 self-draws 清一色 碰碰胡: each of the three others pays 12.
    hand1 = group.say(ZHANG, "/hu 老王 zimo qys pph")
    text = hand1["plain_text"]
    assert "Hand #1" in text and "清一色" in text and "碰碰胡" in text, text
    assert sorted_transfers(text) == sorted(
        (payer["first_name"], "老王", Fraction(12)) for payer in (LI, ZHANG, CHEN)
    )
    assert button_data(hand1, UNDO)
    reply = group.text(CHEN, "/standings")
    lines = reply.splitlines()
    assert "1. 老王 +36" in lines and sum(line.endswith(" -12") for line in lines) == 3, reply
    assert balances(reply) == nums({"老王": 36, "小李": -12, "阿张": -12, "Chen": -12})

    # A concealed kong, then 杠上花 on its replacement tile: the kong is paid inside (2u + 1).
    kong = group.say(LI, "/gang 小李 an")
    assert "Kong recorded" in kong["plain_text"] and button_data(kong, UNDO)
    gangkai = group.text(LI, "/hu 小李 gangkai")
    assert "杠上花" in gangkai, gangkai
    assert sorted_transfers(gangkai) == sorted(
        (payer, "小李", Fraction(7)) for payer in ("老王", "阿张", "Chen")
    )

    # Seat 2 (小李) wins on seat 3's (阿张) discard: a small hand pays 2.
    pao = group.say(WANG, "/hu 2 pao 3")
    assert "Hand #3" in pao["plain_text"]
    assert transfers(pao["plain_text"]) == [("阿张", "小李", Fraction(2))]
    evening = nums({"老王": 29, "小李": 11, "阿张": -21, "Chen": -19})
    assert group.standings(WANG) == evening
    assert sum(evening.values()) == 0

    # The Undo button of the last recorded hand: the hand is reverted, the button removed.
    last = group.last_with_button(UNDO)
    assert last["message_id"] == pao["message_id"]
    undo_data = button_data(last, UNDO)
    answer, undone = group.press_ok(ZHANG, last, undo_data)
    assert answer["message_id"] == pao["message_id"]
    assert "Undone: hand #3" in undone["plain_text"] and "/hu 2 pao 3" in undone["plain_text"]
    state = group.message_state(pao["message_id"])
    spent = [{"text": "↩️ Undone", "disabled": {}}]  # the Undo stays, disabled, saying so
    assert state["action"] == "edited" and buttons(state) == spent
    before_hand3 = nums({"老王": 29, "小李": 9, "阿张": -19, "Chen": -19})
    assert group.standings(CHEN) == before_hand3

    # The same button again (a stale client: the message has no button now): refused.
    assert "no longer valid" in group.press_refused(ZHANG, last, undo_data)["text"]
    assert group.standings(WANG) == before_hand3
    # An older hand's button undoes that hand alone (issue 12); the dealer stays.
    _, undone1 = group.press_ok(WANG, hand1, button_data(hand1, UNDO))
    assert "Undone: hand #1" in undone1["plain_text"], undone1
    before_hand3 = nums({"老王": -7, "小李": 21, "阿张": -7, "Chen": -7})
    assert group.standings(WANG) == before_hand3

    # SIGTERM: a clean exit; a new process on the same database has lost nothing.
    assert bot.stop() == 0
    assert "Application.stop() complete" in bot.log()
    bot2 = bots.start()
    assert group.standings(LI) == before_hand3  # one reply: no old update handled again
    history = group.text(LI, "/history")
    assert "/hu 2 pao 3 [undone]" in history, history
    hand = group.text(CHEN, "/hu Chen pao 老王")
    assert "Hand #" in hand and transfers(hand), hand
    assert {payee for _, payee, _ in transfers(hand)} == {"Chen"}
    assert group.standings(ZHANG) == settle(before_hand3, transfers(hand))

    assert bot2.stop() == 0
    for process in bots.started:
        process.assert_token_not_logged(TOKEN)


# ---------------------------------------------------------------- 2. webhook, 510K


def test_webhook_510k_and_wrong_secret(webhook: Bots) -> None:
    bot, group = webhook.bot, webhook.group("510K")
    assert bot.env["WEBHOOK_URL"], "a webhook bot"
    assert "510K" in group.text(ALICE, "/new 510k")
    seats = group.text(ALICE, "/seats A B C D")
    assert "Seats set" in seats and "1. A" in seats and "4. D" in seats, seats
    seats_update = group.last_update
    assert seats_update is not None

    hand1 = group.say(BOB, "/r A=25 B=35 C=20 D=0/20 out B A C")
    expected = nums({"A": 22.5, "B": 7.5, "C": 22.5, "D": 7.5})
    assert k510_scores(hand1["plain_text"]) == expected
    assert button_data(hand1, UNDO)
    reply = group.text(BOB, "/standings")
    assert "510K" in reply and any(line.endswith(" +22.5") for line in reply.splitlines())
    assert balances(reply) == expected

    hand2 = group.text(ALICE, "/r A=30 B=20 C=40 D=10 out A C")
    assert "510K hand #2" in hand2
    two_hands = {n: expected[n] + k510_scores(hand2)[n] for n in expected}
    assert group.standings(ALICE) == two_hands

    # A POST to the webhook with a wrong or missing secret token is refused and changes nothing.
    forged = message_update(
        seats_update,
        "/r A=40 B=10 C=40 D=10 out C A",  # not hand 2's order: a near repeat would ask
        update_id=seats_update["update_id"] + 1_000_000,
        message_id=seats_update["message"]["message_id"] + 1_000,
    )
    since = group.mark()
    for secret in ("wrong-secret", None, WEBHOOK_SECRET.upper()):
        response = post_update(bot.env["WEBHOOK_URL"], forged, secret)
        assert response.status_code == 403, (secret, response)
    assert group.standings(ALICE) == two_hands  # one reply: the refused ones left no trace
    assert [e["action"] for e in group.entries(since)] == ["sent"]
    assert bot.alive

    # The very same update with the right secret is a valid hand: it was the secret that failed.
    accepted = group.deliver(bot, forged)
    assert "510K hand #3" in accepted["plain_text"], accepted
    hand3 = k510_scores(accepted["plain_text"])
    assert group.standings(BOB) == {n: two_hands[n] + hand3[n] for n in two_hands}
    bot.assert_token_not_logged(TOKEN)


# ---------------------------------------------------------------- 6. redelivered updates


def test_webhook_redelivered_updates_count_once(webhook: Bots) -> None:
    bot, group = webhook.bot, webhook.group("510K")
    group.text(ALICE, "/new 510k")
    group.text(ALICE, "/seats A B C D")
    template = group.last_update
    assert template is not None
    first_id = template["update_id"] + 500_000
    message_id = template["message"]["message_id"] + 500

    def update(n: int, text: str) -> dict:
        return message_update(template, text, first_id + n, message_id + n)

    # Telegram redelivers when it saw no 2xx answer: the same update, twice (posted by us).
    # It changes nothing, and answers with what was recorded (its reply may have been lost).
    hand = update(0, "/r A=25 B=35 C=20 D=0/20 out B A C")
    recorded = group.deliver(bot, hand)["plain_text"]
    assert "510K hand #1" in recorded and "recorded already" not in recorded, recorded
    scores = k510_scores(recorded)
    again = group.redeliver(bot, hand, ALICE)
    assert len(again) == 2 and "recorded already" in again[0], again  # then /standings'
    assert group.standings(ALICE) == scores

    # The emulator's own delivery of a hand, delivered a second time: also counted once.
    hand2 = group.text(BOB, "/r A=30 B=20 C=40 D=10 out A C")
    redelivered = group.last_update
    assert redelivered is not None
    assert len(group.redeliver(bot, redelivered, ALICE)) == 2
    two_hands = {n: scores[n] + k510_scores(hand2)[n] for n in scores}
    assert group.standings(ALICE) == two_hands

    # A redelivered /undo undoes one hand, not two.
    undo = update(1, "/undo")
    assert "Undone: hand #2" in group.deliver(bot, undo)["plain_text"]
    assert group.redeliver(bot, undo, BOB)[0] == "Already done."  # then /standings
    assert group.standings(BOB) == scores

    # A redelivered Undo press: one hand undone, not the one before it.
    hand3 = group.say(BOB, "/r A=40 B=10 C=40 D=10 out A C")
    _, undone = group.press_ok(ALICE, hand3, button_data(hand3, UNDO))
    assert "Undone: hand #3" in undone["plain_text"]
    since = group.mark()
    assert group.last_update is not None  # the press, as the emulator delivered it
    response = post_update(bot.env["WEBHOOK_URL"], group.last_update, WEBHOOK_SECRET)
    assert response.status_code == 200
    texts, standings = group.drain(ALICE, since)
    assert not [t for t in texts if "Undone" in t], texts
    assert standings == scores
    bot.assert_token_not_logged(TOKEN)


def test_webhook_redelivered_press_is_quiet(webhook: Bots) -> None:
    bot, group = webhook.bot, webhook.group("510K")
    group.text(ALICE, "/new 510k")
    group.text(ALICE, "/seats A B C D")
    hand = group.say(BOB, "/r A=25 B=35 C=20 D=0/20 out B A C")
    since = group.mark()
    press = group.client.press(group.chat, ALICE, hand["message_id"], button_data(hand, UNDO))
    group.wait_entries(since, lambda es: any("Undone" in e["plain_text"] for e in es))
    assert post_update(bot.env["WEBHOOK_URL"], press, WEBHOOK_SECRET).status_code == 200
    texts, standings = group.drain(ALICE, since)
    assert standings == nums(dict.fromkeys("ABCD", 0))
    assert not [t for t in texts if "went wrong" in t], texts


# ---------------------------------------------------------------- 3. admin flow, forged presses


def play_one_hand(group: Group) -> dict:
    """A guest table and one hand: 老王 +36, the others -12. Returns the hand's message."""
    assert "New table" in group.text(ALICE, "/new mahjong")
    assert "Seats set" in group.text(ALICE, "/seats 老王 小李 阿张 Chen")
    return group.say(BOB, "/hu 老王 zimo qys pph")


def test_admin_reset_and_forged_callbacks(polling: Bots) -> None:
    group, client = polling.group(), polling.client
    hand1 = play_one_hand(group)
    season1 = nums({"老王": 36, "小李": -12, "阿张": -12, "Chen": -12})
    assert group.standings(BOB) == season1

    # A member may not reset: a polite refusal, no buttons.
    refusal = group.say(BOB, "/reset")
    assert refusal["plain_text"] == "⚠️ Only group admins can do that."
    assert buttons(refusal) == []

    # An administrator is asked to confirm with buttons.
    client.set_member(group.chat, ALICE, "administrator")
    ask = group.say(ALICE, "/reset")
    assert "Archive season 1 and start season 2?" in ask["plain_text"], ask
    assert [b["text"] for b in buttons(ask)] == ["Confirm", "Cancel"]
    confirm = button_data(ask, "v1:reset:")
    assert button_data(ask, "v1:cancel") == "v1:cancel"

    # Pressed by a member: refused. Forged data (not a button of the message): refused with an
    # alert, nothing changes.
    assert "Only group admins" in group.press_refused(BOB, ask, confirm)["text"]
    forged = group.press_refused(ALICE, ask, "v1:undo:999999")
    assert "no longer valid" in forged["text"], forged
    assert "no longer valid" in group.press_refused(ALICE, ask, "garbage")["text"]
    assert "no longer valid" in group.press_refused(ALICE, ask, "v1:undo:1; DROP")["text"]

    # Another chat's Undo button data, pressed here: its hand is not undone from here.
    other = Group(client, title="the other table")
    other_hand = play_one_hand(other)
    other_undo = button_data(other_hand, UNDO)
    assert "no longer valid" in group.press_refused(ALICE, ask, other_undo)["text"]
    assert other.standings(ALICE) == season1
    assert group.standings(ALICE) == season1
    assert buttons(group.message_state(ask["message_id"])) == buttons(ask)

    # Confirm: the season is archived, a new one begins (its number in the reply).
    _, done = group.press_ok(ALICE, ask, confirm)
    assert "Season 1 archived" in done["plain_text"], done
    assert "Season 2 begins" in done["plain_text"], done
    assert buttons(group.message_state(ask["message_id"])) == []
    now = group.text(BOB, "/standings")
    assert "season 2" in now and "No hands recorded yet." in now, now
    archived = group.text(BOB, "/standings 1")
    assert "season 1 (archived)" in archived, archived
    assert balances(archived) == season1
    assert "Season 1" in group.text(ALICE, "/seasons")

    # An archived hand's Undo button is refused; the table plays on in season 2.
    stale = group.press_refused(BOB, hand1, button_data(hand1, UNDO))
    assert "archived season" in stale["text"], stale
    hand = group.text(BOB, "/hu 2 zimo")
    assert group.standings(ALICE) == settle({}, transfers(hand))
    assert balances(group.text(ALICE, "/standings 1")) == season1
    polling.bot.assert_token_not_logged(TOKEN)


def test_reset_confirm_pressed_twice(polling: Bots) -> None:
    group, client = polling.group(), polling.client
    client.set_member(group.chat, ALICE, "administrator")
    ask = group.say(ALICE, "/reset")
    confirm = button_data(ask, "v1:reset:")
    since = group.press(ALICE, ask["message_id"], confirm)
    group.press(ALICE, ask["message_id"], confirm)  # the double tap, before the edit arrives
    client.send(group.chat, ALICE, "/standings")  # handled after both presses
    entries = group.wait_entries(since, lambda es: any("Standings" in e["plain_text"] for e in es))
    texts = [e["plain_text"] for e in entries if e["action"] == "sent"]
    assert not [t for t in texts if "went wrong" in t], texts
    assert sum("Season 2 begins" in t for t in texts) == 1, texts
    assert "season 2" in texts[-1], texts


# ---------------------------------------------------------------- 4. languages


@pytest.mark.skipif(
    not (REPO / "bot/locale/zh/LC_MESSAGES/jifen.mo").exists(),
    reason="no compiled Chinese catalog (bot/locale/zh/LC_MESSAGES/jifen.mo)",
)
def test_language_of_the_first_command_then_of_the_chat(polling: Bots) -> None:
    group, client = polling.group(), polling.client
    wang, boss = user("老王", 2001, "zh"), user("大刘", 2002, "zh-hans")
    # The chat's first command sets its language; a later sender's Telegram language does not.
    assert CJK.search(group.text(wang, "/new mahjong"))
    zh = group.text(wang, "/standings")
    assert "赛季" in zh and "Standings" not in zh, zh
    assert "赛季" in group.text(ALICE, "/standings")

    # /set lang is for admins; the refusal is in Chinese.
    refused = group.text(wang, "/set lang en")
    assert "管理员" in refused, refused
    assert "赛季" in group.text(wang, "/standings")

    client.set_member(group.chat, boss, "administrator")
    assert group.text(boss, "/set lang en") == "Set language: English."
    english = group.text(wang, "/standings")
    assert "Standings of season 1" in english and "赛季" not in english, english
    assert "sits down" in group.text(wang, "/join")

    assert "已设置" in group.text(boss, "/set lang zh")
    assert "赛季" in group.text(ALICE, "/standings")


# ---------------------------------------------------------------- 5. the token and the log


def test_token_stays_out_of_the_log(polling: Bots) -> None:
    bot, group, client = polling.bot, polling.group(), polling.client
    play_one_hand(group)
    # The bot is kicked: its answer is refused for good, and that is logged (no apology: it
    # would be refused too).
    unreported = bot.log().count("refused for good")
    client.set_member(group.chat, BOT_USER, "kicked")
    client.send(group.chat, ALICE, "/standings")
    wait_until(
        lambda: bot.log().count("refused for good") > unreported or not bot.alive,
        REPLY_TIMEOUT,
        "the failure logged",
    )
    assert bot.alive
    client.set_member(group.chat, BOT_USER, "member")
    assert "Standings of season 1" in group.text(ALICE, "/standings")  # it kept running
    log = bot.log()
    assert "long polling" in log and "Forbidden" in log
    bot.assert_token_not_logged(TOKEN)


def test_rejected_token_is_not_printed(polling: Bots) -> None:
    rejected = "654321:RejectedTokenSecretPart_xyz"  # the emulator accepts only TOKEN
    bot = polling.start(token=rejected, ready=False)  # stops at getMe: no polling conflict
    code = bot.wait(timeout=60)
    assert code != 0
    assert TOKEN not in bot.log()
    bot.assert_token_not_logged(rejected)
