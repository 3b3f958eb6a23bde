"""Who a command comes from (issue 15): forwards and via-bot messages do not run, channel
identities record but never sit and have their own flood key, guests become people only when
asked, names cannot hide or imitate, a double tap on the wizard's Record records once. Every
update is built as the Bot API sends it."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from bot.settings import Settings
from tests.emulator.api import Chat, User
from tests.reliability.harness import BotUnderTest, Outcome, fresh_id, make_bot

TELEGRAM = {"id": 777000, "is_bot": False, "first_name": "Telegram"}
CHANNEL_BOT = {"id": 136817688, "is_bot": True, "first_name": "Channel", "username": "Channel_Bot"}
OTHER_BOT = {"id": 5_000_001, "is_bot": True, "first_name": "Gif", "username": "gif"}


@pytest.fixture
def bot(sqlite_engine: Engine) -> Iterator[BotUnderTest]:
    yield from make_bot(sqlite_engine)


@pytest.fixture
def flood_bot(sqlite_engine: Engine) -> Iterator[BotUnderTest]:
    config = Settings.given(
        token="123:TEST", database_url=str(sqlite_engine.url), rate_limit=False, flood=(3, 60.0)
    )
    yield from make_bot(sqlite_engine, flood=True, config=config)


def people(*names: str) -> list[User]:
    return [
        User(fresh_id() + 50_000, n, username=f"{n.lower()}_{fresh_id()}", language_code="en")
        for n in names
    ]


def group(bot: BotUnderTest, *members: User) -> Chat:
    chat = Chat(-100_000_000 - fresh_id(), "supergroup", title="table")
    bot.api.add_chat(chat)
    for user in members:
        bot.api.set_member(chat.id, user, "member")
    return chat


def channel() -> dict[str, Any]:
    n = fresh_id()
    return {"id": -1_009_000_000 - n, "type": "channel", "title": f"Li's channel {n}"}


def relayed(bot: BotUnderTest, user: User, chat: Chat, text_: str, **fields: Any) -> Outcome:
    """A message as Telegram would deliver it, with `fields` set (or replaced)."""
    update = bot.api.send_text(chat, user, text_)
    message = update["message"]
    message.update(copy.deepcopy(fields))
    return bot.process(update)


def hands(bot: BotUnderTest, chat: Chat) -> int:
    with bot.engine.connect() as conn:
        return int(
            conn.execute(
                text("SELECT count(*) FROM event WHERE chat_id = :c AND kind = 'hand'"),
                {"c": chat.id},
            ).scalar_one()
        )


def seated_table(bot: BotUnderTest) -> tuple[Chat, list[User]]:
    users = people("Ann", "Bob", "Cat", "Dan")
    chat = group(bot, *users)
    bot.say(users[0], "/new mahjong", chat)
    for user in users:
        bot.say(user, "/join", chat)
    return chat, users


# ------------------------------------------------------------------ 5. forwards and via_bot


def test_forwarded_automatic_and_via_bot_commands_do_not_run(bot: BotUnderTest) -> None:
    chat, (ann, *_) = seated_table(bot)
    assert bot.say(ann, "/hu Ann zimo", chat).sent
    assert hands(bot, chat) == 1
    before = bot.snapshot()
    origin = {"type": "user", "sender_user": ann.to_dict(), "date": 1_700_000_000}
    forwarded = relayed(bot, ann, chat, "/hu Ann zimo", forward_origin=origin)
    via = relayed(bot, ann, chat, "/hu Ann zimo", via_bot=OTHER_BOT)
    news = channel()
    automatic = relayed(
        bot,
        ann,
        chat,
        "/new 510k",
        **{
            "from": TELEGRAM,
            "sender_chat": news,
            "is_automatic_forward": True,
            "forward_origin": {
                "type": "channel",
                "chat": news,
                "message_id": 7,
                "date": 1_700_000_000,
            },
        },
    )
    for outcome in (forwarded, via, automatic):
        assert outcome.sent == [] and not outcome.errors
    assert bot.snapshot() == before  # no hand, and the mahjong table is still open
    assert "Ann" in "\n".join(bot.say(ann, "/players", chat).texts)


# ------------------------------------------------------------------ 11. channel identities


def test_a_channel_identity_records_under_its_name_but_cannot_sit(bot: BotUnderTest) -> None:
    chat, users = seated_table(bot)
    li = channel()
    as_channel: dict[str, Any] = {"from": CHANNEL_BOT, "sender_chat": li}
    joined = relayed(bot, users[0], chat, "/join", **as_channel)
    assert "channel" in joined.texts[0] and "cannot take a seat" in joined.texts[0]
    assert "Anonymous" not in joined.texts[0]
    recorded = relayed(bot, users[0], chat, "/hu Ann zimo", **as_channel)
    assert "Ann" in recorded.texts[0] and not recorded.errors
    with bot.engine.connect() as conn:
        by, name = conn.execute(
            text("SELECT recorded_by, recorded_by_name FROM event WHERE chat_id = :c"),
            {"c": chat.id},
        ).one()
    assert (by, name) == (li["id"], li["title"])
    assert relayed(bot, users[0], chat, "/standings", **as_channel).texts


def test_flood_limit_is_per_channel_not_shared(flood_bot: BotUnderTest) -> None:
    bot = flood_bot
    chat, users = seated_table(bot)  # 5 commands of 4 members: each under the limit of 3
    first, second = channel(), channel()
    for _ in range(5):  # the first channel floods
        relayed(bot, users[0], chat, "/standings", **{"from": CHANNEL_BOT, "sender_chat": first})
    answered = relayed(
        bot, users[0], chat, "/standings", **{"from": CHANNEL_BOT, "sender_chat": second}
    )
    assert answered.texts and "Slow down" not in answered.texts[0]
    flooded = relayed(
        bot, users[0], chat, "/standings", **{"from": CHANNEL_BOT, "sender_chat": first}
    )
    assert flooded.sent == []  # warned once already, then silence
    anonymous = bot.anonymous("/standings", chat)
    assert anonymous.texts and "Slow down" not in anonymous.texts[0]


# ------------------------------------------------------------------ 3. wizard double tap


def test_a_double_tap_on_record_records_once(bot: BotUnderTest) -> None:
    chat, (ann, *_) = seated_table(bot)
    screen = bot.say(ann, "/hu", chat).sent[0]
    message_id = screen.message_id
    labels: dict[str, str] = {}
    while "Record" not in labels:  # the first answer of each question, no flags
        data = labels.get("Done") or screen.buttons[0][0]["callback_data"]
        out = bot.press(ann, chat, message_id, data)
        screen = next(e for e in out.sent if e.message_id == message_id)
        labels = {b["text"]: b["callback_data"] for row in screen.buttons for b in row}
    record = labels["Record"]
    # Two callback queries from the same message, both sent before the bot edited it.
    taps = [bot.api.press_button(chat, ann, message_id, record) for _ in range(2)]
    first, second = bot.process(taps[0]), bot.process(taps[1])
    assert any("Ann" in t for t in first.texts)
    assert [a.text for a in second.answers] == ["Already recorded."]
    assert second.sent == [] and hands(bot, chat) == 1
    bot.check_invariants()


# ------------------------------------------------------------------ 9. guests and names


def stand_up(bot: BotUnderTest, user: User, chat: Chat, stay: str) -> None:
    """A new mahjong table where only `stay` sit (/new keeps the seated: a free table's
    seating drops the others first)."""
    bot.say(user, "/new free", chat)
    bot.say(user, f"/seats {stay}", chat)
    bot.say(user, "/new mahjong", chat)


def test_a_member_named_like_a_guest_does_not_become_the_guest(bot: BotUnderTest) -> None:
    ann, bob, cat, mallory = people("Ann", "Bob", "Cat", "Mallory")
    chat = group(bot, ann, bob, cat, mallory)
    bot.say(ann, "/new mahjong", chat)
    bot.say(ann, "/seats Ann Bob Cat 小李", chat)
    bot.say(ann, "/hu 小李 zimo", chat)
    stand_up(bot, ann, chat, "Ann Bob")  # /new keeps people seated: 小李 stands up first
    bot.say(ann, "/join 小李", chat)  # the guest sits down again
    impostor = User(mallory.id, "小\u200b李", username=mallory.username, language_code="en")
    reply = bot.say(impostor, "/join", chat).texts[0]
    # not the guest, and not beside it under its name: a name taken is numbered (issue 37)
    assert "小李 (2)" in reply and "I am 小李" not in reply
    standings = "\n".join(bot.say(ann, "/standings", chat).texts)
    assert "小李 +9" in standings and "Mallory" not in standings
    bot.say(impostor, "/link 小李 @" + str(mallory.username), chat)  # not an admin: refused
    assert "小李 +9" in "\n".join(bot.say(impostor, "/standings", chat).texts)


def test_join_as_a_guest_asks_and_only_that_member_can_confirm(bot: BotUnderTest) -> None:
    ann, bob, cat, li = people("Ann", "Bob", "Cat", "Li")
    chat = group(bot, ann, bob, cat, li)
    bot.say(ann, "/new mahjong", chat)
    bot.say(ann, "/seats Ann Bob Cat 小李", chat)
    bot.say(ann, "/hu 小李 zimo", chat)
    stand_up(bot, ann, chat, "Ann Bob Cat")
    out = bot.say(li, "/join 小李", chat)
    entry = out.sent[0]
    (button,) = (b for row in entry.buttons for b in row)
    assert button["text"] == "I am 小李"
    refused = bot.press(bob, chat, entry.message_id, button["callback_data"])
    assert [a.text for a in refused.answers] == ["This button is for the member who asked."]
    taps = [bot.api.press_button(chat, li, entry.message_id, button["callback_data"]) for _ in "12"]
    claimed = bot.process(taps[0])
    assert any("Li is 小李 now" in t for t in claimed.texts), claimed.texts
    again = bot.process(taps[1])  # a double tap: sent before the buttons were removed
    assert again.sent == [] and [a.text for a in again.answers] == ["Already done."]
    for user in (ann, bob, cat):
        bot.say(user, "/join", chat)
    assert "Li" not in "\n".join(bot.say(ann, "/players", chat).texts)  # 小李 is Li now
    bot.say(li, "/hu me zimo", chat)
    assert "小李 +18" in "\n".join(bot.say(ann, "/standings", chat).texts)
    unlinked = bot.say(ann, "/unlink 小李", chat)  # ann is not an admin here
    assert "admins" in unlinked.texts[0]
    bot.api.set_member(chat.id, ann, "administrator")
    assert "guest again" in bot.say(ann, "/unlink 小李", chat).texts[0]
    bot.say(li, "/new free", chat)  # everyone keeps their seat, and there is room for Li
    assert "4. 小李\n5. Li" in "\n".join(bot.say(li, "/join", chat).texts)  # Li is not 小李


def test_seats_by_username_reuses_one_guest_linked_when_the_user_speaks(
    bot: BotUnderTest,
) -> None:
    ann, bob, cat, dan = people("Ann", "Bob", "Cat", "Dan")
    chat = group(bot, ann, bob, cat, dan)
    bot.say(ann, "/new mahjong", chat)
    for _ in range(3):
        bot.say(ann, f"/seats Ann Bob Cat @{dan.username}", chat)
    with bot.engine.connect() as conn:
        count = conn.execute(
            text("SELECT count(*) FROM player WHERE chat_id = :c"), {"c": chat.id}
        ).scalar_one()
    assert count == 4
    bot.say(ann, f"/hu @{dan.username} zimo", chat)
    bot.say(ann, "/pay Ann Bob 1", chat)  # (the same hand right after would be asked about)
    bot.say(dan, "/hu me zimo", chat)  # Dan speaks: the guest "@dan_…" is Dan from now on
    assert "Dan +18" in "\n".join(bot.say(ann, "/standings", chat).texts)


# ------------------------------------------------------------------ 10. names


@pytest.mark.parametrize(
    ("typed", "shown"),
    [
        ("\u202eecilA", "ecilA"),  # a right-to-left override
        ("Al\u00adi\u200dce", "Alice"),  # a soft hyphen and a zero-width joiner
        ("\u2066Bo\u2069", "Bo"),  # isolates
        ("ＣＨＥＮ", "CHEN"),  # full-width letters
    ],
)
def test_guest_names_are_cleaned(bot: BotUnderTest, typed: str, shown: str) -> None:
    (ann,) = people("Ann")
    chat = group(bot, ann)
    bot.say(ann, "/new mahjong", chat)
    reply = "\n".join(bot.say(ann, f"/join {typed}", chat).texts)
    assert f"1. {shown}" in reply


def test_an_invisible_or_lookalike_name_is_refused(bot: BotUnderTest) -> None:
    ann, alice = people("Ann", "Alice")
    chat = group(bot, ann, alice)
    bot.say(ann, "/new mahjong", chat)
    before = bot.snapshot()
    empty = bot.say(ann, "/join \u200b\u2066\u2069", chat)
    assert "no visible letters" in empty.texts[0]
    assert bot.snapshot() == before
    bot.say(alice, "/join", chat)
    for lookalike in ("\u0410lice", "ALICE\u200b", "Аlicе"):  # Cyrillic А and е
        reply = bot.say(ann, f"/join {lookalike}", chat).texts[0]
        assert "looks the same" in reply or "already sits" in reply
    assert "\n2. —" in "\n".join(bot.say(ann, "/players", chat).texts)


def test_join_offers_the_look_alike_guest_and_the_seat_goes_to_it(bot: BotUnderTest) -> None:
    ann, dan = people("Ann", "Dan")
    chat = group(bot, ann, dan)
    bot.say(ann, "/new mahjong", chat)
    bot.say(ann, "/seats Ann Bob Cat Dan", chat)  # Dan is a guest here
    bot.say(ann, "/hu Ann zimo", chat)
    stand_up(bot, ann, chat, "Ann Bob Cat")  # the guest Dan stands up
    joined = bot.say(dan, "/join", chat).sent[0]  # the member sits down as a new player …
    assert "4. Dan" in joined.plain_text
    (button,) = (b for row in joined.buttons for b in row)
    assert button["text"] == "I am Dan"  # … and may say they are the guest who played
    claimed = bot.press(dan, chat, joined.message_id, button["callback_data"])
    assert any("You are Dan here now" in t for t in claimed.texts)  # his own name: issue 37
    assert "3. Cat\n4. Dan" in "\n".join(bot.say(ann, "/players", chat).texts)
    bot.say(ann, "/dealer Dan", chat)
    bot.say(dan, "/hu me zimo", chat)
    standings = "\n".join(bot.say(ann, "/standings", chat).texts)
    assert "Dan +6" in standings and standings.count("Dan") == 1
    bot.check_invariants()
