"""Issue 40, points 1 and 2, through the bot and the Bot API emulator: /mine and /me in a group
answer their sender alone (the exact sendMessage the bot makes, with its
`ephemeral_message_parameters`), the [👤 My account] button under /standings answers the presser
in place, and where the API refuses, the fallback is the button into the private chat — never
the answer in public. Buttons speak: Undo red, Record again / Confirm green, a spent Undo
disabled and saying so, a copy button per payment of /settle and /settle money."""

from __future__ import annotations

import copy
import re
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from telegram import Update

from tests.emulator.api import Chat, FakeBotApi, OutboxEntry, User
from tests.integration.test_bot import running

GROUP = Chat(-100700, "supergroup", title="Friday")
ANN, BOB, CAT, DAN = (
    User(301 + i, name, username=name.lower(), language_code="en")
    for i, name in enumerate(("Ann", "Bob", "Cat", "Dan"))
)
PLAYERS = (ANN, BOB, CAT, DAN)
OUTSIDER = User(399, "Eve", username="eve", language_code="en")  # not in the group


class RecordingApi(FakeBotApi):
    """The emulator, keeping every call the bot made as it was sent (method, parameters)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def call(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        self.calls.append((method, copy.deepcopy(dict(params or {}))))
        return super().call(method, params)

    def sent(self, method: str) -> list[dict[str, Any]]:
        return [params for name, params in self.calls if name.lower() == method.lower()]


class Night:
    """The group, four players at a mahjong table, and the bot."""

    def __init__(self, api: RecordingApi, app: Any) -> None:
        self.api, self.app = api, app

    async def say(
        self, user: User, text: str, chat: Chat = GROUP, reply_to: int | None = None
    ) -> list[OutboxEntry]:
        seq = self.api.last_seq
        update = self.api.send_text(chat, user, text, reply_to=reply_to)
        self.api.take_updates()
        await self.app.process_update(Update.de_json(update, self.app.bot))
        return self.api.outbox_since(seq)

    async def press(self, user: User, entry: OutboxEntry, data: str) -> list[OutboxEntry]:
        seq = self.api.last_seq
        update = self.api.press_button(entry.chat_id, user, entry.message_id, data)
        self.api.take_updates()
        await self.app.process_update(Update.de_json(update, self.app.bot))
        return self.api.outbox_since(seq)

    async def evening(self) -> None:
        """Ann +36 (a big self-draw), then Bob wins 2 off Ann; mahjong at 0.5 a point."""
        await self.say(ANN, "/new mahjong")
        for user in PLAYERS:
            await self.say(user, "/join")
        await self.say(ANN, "/set stake 0.5")
        await self.say(BOB, "/hu Ann zimo qys pph")
        await self.say(BOB, "/hu Bob pao Ann")


@pytest.fixture
async def night(sqlite_engine: Engine) -> AsyncIterator[Night]:
    api = RecordingApi()
    api.add_chat(GROUP)
    for user in PLAYERS:
        api.set_member(GROUP.id, user, "member")
    api.set_member(GROUP.id, ANN, "creator")
    async with running(api, sqlite_engine) as app:
        yield Night(api, app)


def public(entries: list[OutboxEntry]) -> list[OutboxEntry]:
    """What everyone in the chat sees of `entries`."""
    return [e for e in entries if e.receiver_user_id is None]


def button(entries: list[OutboxEntry], text: str) -> tuple[OutboxEntry, dict[str, Any]]:
    for entry in entries:
        for row in entry.buttons:
            for b in row:
                if b["text"] == text:
                    return entry, b
    raise AssertionError(f"no button {text!r} in {[e.buttons for e in entries]}")


# ---------------------------------------------------------------- point 1: private answers


async def test_mine_in_the_group_is_for_the_sender_alone(night: Night) -> None:
    await night.evening()
    calls = len(night.api.calls)
    entries = await night.say(ANN, "/mine")
    assert public(entries) == []  # nothing in public
    [shown] = entries
    assert shown.receiver_user_id == ANN.id and shown.chat_id == GROUP.id
    text = shown.plain_text
    assert "My account · Ann, season 1" in text, text
    assert "Balance: 🀄 mahjong +34" in text, text  # +36, then -2
    assert "/hu Bob pao Ann" in text and "-2" in text and "+36" in text, text
    assert "I pay" not in text and "pays me" in text, text  # Ann gets money
    assert "Only you see this message." in text
    # The exact request: sendMessage to the group with the Bot API 10.2 parameters.
    [(method, params)] = [c for c in night.api.calls[calls:] if c[0] != "getChatMember"]
    assert method == "sendMessage"
    assert params["chat_id"] == GROUP.id and params["parse_mode"] == "HTML"
    assert params["ephemeral_message_parameters"] == {"receiver_user_id": ANN.id}


async def test_mine_shows_what_the_sender_pays_at_settle_money(night: Night) -> None:
    await night.evening()
    money = "\n".join(e.plain_text for e in await night.say(CAT, "/settle money"))
    [mine] = await night.say(CAT, "/我的")
    owed = [line.strip() for line in mine.plain_text.splitlines() if "I pay" in line]
    assert owed, mine.plain_text
    for line in owed:  # "I pay Ann 6": the line "Cat → Ann 6" of /settle money
        name, amount = line.removeprefix("I pay ").rsplit(" ", 1)
        assert f"Cat → {name} {amount}" in money, (line, money)


async def test_me_in_the_group_is_for_the_sender_alone(night: Night) -> None:
    await night.evening()
    entries = await night.say(BOB, "/me")
    assert public(entries) == []
    [shown] = entries
    assert shown.receiver_user_id == BOB.id
    assert "Friday" in shown.plain_text and "Only you see this message." in shown.plain_text
    [params] = night.api.sent("sendMessage")[-1:]
    assert params["ephemeral_message_parameters"] == {"receiver_user_id": BOB.id}


@pytest.mark.parametrize("how", ["old client", "old server"])
async def test_refused_it_falls_back_to_the_private_chat_never_to_public(
    night: Night, how: str
) -> None:
    await night.evening()
    if how == "old client":
        night.api.ephemeral_refused.add(DAN.id)
    else:
        night.api.ephemeral_supported = False
    for command, link, label in (
        ("/mine", "mine", "Show my account"),
        ("/me", "me", "Show my record"),
    ):
        entries = await night.say(DAN, command)
        [shown] = entries
        assert shown.receiver_user_id is None  # the short public line …
        assert "private chat" in shown.plain_text
        assert "Balance" not in shown.plain_text and "-" not in shown.plain_text
        assert shown.buttons == [[{"text": label, "url": f"https://t.me/jifen_bot?start={link}"}]]
    # … and the deep link opens the private chat with the account of every group.
    [mine] = await night.say(DAN, "/start mine", Chat.private(DAN))
    assert "Friday" in mine.plain_text and "Balance: 🀄 mahjong" in mine.plain_text
    assert "our private chat" in mine.plain_text


async def test_someone_without_a_player_is_told_how_to_get_one(night: Night) -> None:
    night.api.set_member(GROUP.id, OUTSIDER, "member")
    await night.evening()
    [shown] = await night.say(OUTSIDER, "/mine")
    assert shown.receiver_user_id == OUTSIDER.id
    assert "no player here yet" in shown.plain_text and "/join" in shown.plain_text


async def test_my_account_under_standings_answers_whoever_presses_it(night: Night) -> None:
    await night.evening()
    [standings] = await night.say(ANN, "/standings")
    entry, mine = button([standings], "👤 My account")
    assert mine == {"text": "👤 My account", "callback_data": "v1:mine"}
    calls = len(night.api.calls)
    entries = await night.press(CAT, entry, mine["callback_data"])
    [shown] = entries
    assert shown.receiver_user_id == CAT.id and "Cat, season 1" in shown.plain_text
    sent = [params for method, params in night.api.calls[calls:] if method == "sendMessage"]
    [query] = [a for a in night.api.callback_answers if a.seq > entry.seq]
    assert [p["ephemeral_message_parameters"] for p in sent] == [
        {
            "receiver_user_id": CAT.id,
            "callback_query_id": query.callback_query_id,
            "replace_callback_query_message": False,
        }
    ]
    assert query.text is None and query.url is None  # the press is answered, silently
    assert night.api.message(GROUP.id, entry.message_id)["reply_markup"]  # the message stays


async def test_my_account_refused_opens_the_private_chat(night: Night) -> None:
    await night.evening()
    [standings] = await night.say(ANN, "/standings")
    entry, mine = button([standings], "👤 My account")
    night.api.ephemeral_refused.add(CAT.id)
    entries = await night.press(CAT, entry, mine["callback_data"])
    assert entries == []  # nothing in the chat, for anyone
    [query] = [a for a in night.api.callback_answers if a.seq > entry.seq]
    assert query.url == "https://t.me/jifen_bot?start=mine"


async def test_rules_say_what_is_private(night: Night) -> None:
    rules = "\n".join(e.plain_text for e in await night.say(CAT, "/rules"))
    assert "Private answers: /me" in rules and "/mine" in rules, rules
    assert "never the answer in public" in rules
    assert "Everything else the bot says in a group, everyone sees." in rules


async def test_the_menu_marks_the_private_commands(night: Night) -> None:
    [menu, *_] = night.api.sent("setMyCommands")
    marked = {c["command"] for c in menu["commands"] if c.get("is_ephemeral")}
    assert marked == {"me", "mine"}
    assert all(c.get("is_ephemeral", True) is True for c in menu["commands"])


# ---------------------------------------------------------------- point 2: buttons that speak


async def test_undo_is_red_and_spent_it_says_so(night: Night) -> None:
    await night.evening()
    [recorded] = await night.say(BOB, "/hu Cat zimo")
    entry, undo = button([recorded], "Undo")
    assert undo["style"] == "danger" and undo["callback_data"].startswith("v1:undo:")
    after = await night.press(BOB, entry, undo["callback_data"])
    assert any("Undone" in e.plain_text for e in after)
    assert night.api.message(GROUP.id, entry.message_id)["reply_markup"] == {
        "inline_keyboard": [[{"text": "↩️ Undone", "disabled": {}}]]
    }


async def test_an_undo_whose_record_was_undone_otherwise_is_disabled_when_pressed(
    night: Night,
) -> None:
    await night.evening()
    [recorded] = await night.say(BOB, "/hu Cat zimo")
    entry, undo = button([recorded], "Undo")
    await night.say(BOB, "/undo")  # typed: the button under the record is now stale
    seq = night.api.last_seq
    await night.press(DAN, entry, undo["callback_data"])
    [alert] = night.api.answers_since(seq)
    assert alert.show_alert and "already undone" in (alert.text or "")
    keyboard = night.api.message(GROUP.id, entry.message_id)["reply_markup"]
    assert keyboard == {"inline_keyboard": [[{"text": "↩️ Undone", "disabled": {}}]]}


async def test_undo_typed_in_reply_to_a_record_spends_its_button(night: Night) -> None:
    await night.evening()
    [first, *_] = [e for e in night.api.outbox if e.buttons and "Ann zimo" in e.plain_text]
    entries = await night.say(DAN, "/undo", reply_to=first.message_id)
    assert any("Undone" in e.plain_text for e in entries)
    keyboard = night.api.message(GROUP.id, first.message_id)["reply_markup"]
    assert keyboard == {"inline_keyboard": [[{"text": "↩️ Undone", "disabled": {}}]]}
    again = await night.say(DAN, "/undo", reply_to=first.message_id)  # no Undo button now
    assert "no Undo button" in again[0].plain_text


async def test_record_again_and_confirm_are_green(night: Night) -> None:
    await night.evening()
    entries = await night.say(BOB, "/hu Bob pao Ann")  # the same as the last: asked again
    _, again = button(entries, "Record again")
    assert again["style"] == "success"
    [ask] = await night.say(ANN, "/reset")
    _, confirm = button([ask], "Confirm")
    assert confirm["style"] == "success"
    _, cancel = button([ask], "Cancel")
    assert "style" not in cancel


async def test_each_payment_has_a_copy_button(night: Night) -> None:
    await night.evening()
    for command in ("/settle", "/settle money"):
        [settle] = [e for e in await night.say(ANN, command) if e.buttons]
        copies = [b for row in settle.buttons for b in row if "copy_text" in b]
        lines = [line for line in settle.plain_text.splitlines() if " → " in line]
        assert len(copies) == len(lines) > 0, (command, settle.plain_text)
        for b, line in zip(copies, lines, strict=True):
            copied = b["copy_text"]["text"]  # the payment, in money at a stake
            who, amount = copied.rsplit(" ", 1)
            assert line.startswith(who) and amount in line, (b, line)
            assert b["text"] == "📋 " + copied and set(b) == {"text", "copy_text"}
    money = await night.say(ANN, "/settle money")
    assert any(
        b["copy_text"] == {"text": "Dan → Ann 6"}
        for e in money
        for row in e.buttons
        for b in row
        if "copy_text" in b
    ), [e.buttons for e in money]


async def test_an_undo_whose_record_was_corrected_since_says_so(night: Night) -> None:
    await night.evening()
    [recorded] = await night.say(BOB, "/hu Cat zimo")
    entry, undo = button([recorded], "Undo")
    standings = (await night.say(ANN, "/standings"))[0].plain_text
    await night.say(DAN, "/hu Dan zimo")
    fixed = await night.say(BOB, f"/edit {hand_no(recorded)} /hu Cat pao Dan")  # by its number
    assert any("corrected" in e.plain_text for e in fixed)
    seq = night.api.last_seq
    await night.press(DAN, entry, undo["callback_data"])  # the first version's Undo: stale
    [alert] = night.api.answers_since(seq)
    assert alert.show_alert and "corrected since" in (alert.text or "")
    keyboard = night.api.message(GROUP.id, entry.message_id)["reply_markup"]
    assert keyboard == {"inline_keyboard": [[{"text": "✎ Corrected", "disabled": {}}]]}
    [correction] = [e for e in fixed if e.buttons]
    entry, undo = button([correction], "Undo")
    await night.press(DAN, entry, undo["callback_data"])  # the correction undone
    await night.say(DAN, "/undo")  # and Dan's hand
    assert (await night.say(ANN, "/standings"))[0].plain_text == standings


async def test_a_correction_in_reply_to_a_record_spends_its_undo(night: Night) -> None:
    await night.evening()
    [recorded] = await night.say(BOB, "/hu Cat zimo")
    fixed = await night.say(BOB, "/edit /hu Cat pao Dan", reply_to=recorded.message_id)
    assert any("corrected" in e.plain_text for e in fixed)
    keyboard = night.api.message(GROUP.id, recorded.message_id)["reply_markup"]
    assert keyboard == {"inline_keyboard": [[{"text": "✎ Corrected", "disabled": {}}]]}


def hand_no(entry: OutboxEntry) -> int:
    found = re.search(r"#(\d+)", entry.plain_text)
    assert found is not None, entry.plain_text
    return int(found.group(1))
