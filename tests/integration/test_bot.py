"""The real PTB Application in-process over the fake Bot API: commands, buttons, admins,
languages, forum topics, migration — updates built as Telegram sends them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from telegram import Update

from bot.app import build_application
from bot.ptb_types import AnyApplication
from bot.settings import Settings
from tests.emulator.api import Chat, FakeBotApi, OutboxEntry, User
from tests.emulator.request import EmulatorRequest

GROUP = Chat(-100500, "supergroup", title="table")
FORUM = Chat(-100600, "supergroup", title="club", is_forum=True)
PLAYERS = [
    User(101 + i, name, username=name.lower(), language_code="en")
    for i, name in enumerate(("Ann", "Bob", "Cat", "Dan"))
]
ANN, BOB, CAT, DAN = PLAYERS
ZHANG = User(201, "张三", language_code="zh-hans")


@dataclass
class Harness:
    api: FakeBotApi
    app: Any

    async def say(
        self, user: User, text: str, chat: Chat = GROUP, thread: int | None = None
    ) -> list[OutboxEntry]:
        seq = self.api.last_seq
        update = self.api.send_text(chat, user, text, thread)
        return await self._process(update, seq)

    async def deliver(
        self, user: User, text: str, chat: Chat = GROUP, reply_to: int | None = None
    ) -> list[OutboxEntry] | None:
        """`text` sent as Telegram sends it, None when Telegram keeps it from the bot (privacy
        mode: in a group only commands, replies to the bot and mentions of it arrive)."""
        seq = self.api.last_seq
        self.api.send_text(chat, user, text, reply_to=reply_to)
        delivered = self.api.take_updates()
        for update in delivered:
            await self.app.process_update(Update.de_json(update, self.app.bot))
        return self.api.outbox_since(seq) if delivered else None

    async def press(
        self, user: User, entry: OutboxEntry, data: str, chat: Chat = GROUP
    ) -> list[OutboxEntry]:
        seq = self.api.last_seq
        update = self.api.press_button(chat, user, entry.message_id, data)
        return await self._process(update, seq)

    async def _process(self, update: dict[str, Any], seq: int) -> list[OutboxEntry]:
        self.api.take_updates()
        await self.app.process_update(Update.de_json(update, self.app.bot))
        return self.api.outbox_since(seq)

    async def text(
        self, user: User, text: str, chat: Chat = GROUP, thread: int | None = None
    ) -> str:
        return "\n".join(e.plain_text for e in await self.say(user, text, chat, thread))

    async def seat(
        self, game: str = "mahjong", chat: Chat = GROUP, thread: int | None = None
    ) -> None:
        await self.say(ANN, f"/new {game}", chat, thread)
        for user in PLAYERS:
            await self.say(user, "/join", chat, thread)


@asynccontextmanager
async def running(api: FakeBotApi, engine: Engine) -> AsyncIterator[AnyApplication]:
    """The bot on `engine` talking to the emulator `api`, started and stopped as `jifen run`
    starts and stops it (its `post_init` and `post_shutdown` included)."""
    app = build_application(
        Settings.given(
            token="123:TEST", database_url=str(engine.url), rate_limit=False, flood=None
        ),
        engine=engine,
        request=EmulatorRequest(api),
        updates_request=EmulatorRequest(api),
    )
    await app.initialize()
    await app.post_init(app)
    try:
        yield app
    finally:
        await app.shutdown()
        await app.post_shutdown(app)


@pytest.fixture
async def bot(sqlite_engine: Engine) -> AsyncIterator[Harness]:
    api = FakeBotApi()
    for chat in (GROUP, FORUM):
        api.add_chat(chat)
        for user in (*PLAYERS, ZHANG):
            api.set_member(chat.id, user, "member")
    api.set_member(GROUP.id, ANN, "creator")
    api.set_member(GROUP.id, BOB, "administrator")
    async with running(api, sqlite_engine) as app:
        yield Harness(api, app)


def undo_button(entries: list[OutboxEntry]) -> tuple[OutboxEntry, str]:
    for entry in entries:
        for row in entry.buttons:
            for button in row:
                if button["callback_data"].startswith("v1:undo:"):
                    return entry, button["callback_data"]
    raise AssertionError("no Undo button")


async def test_menu_is_set_in_both_languages(bot: Harness) -> None:
    assert {c["command"] for c in bot.api.commands()} >= {"hu", "gang", "r", "undo", "standings"}
    zh = bot.api.commands(language_code="zh")
    assert any("\u4e00" <= ch <= "\u9fff" for c in zh for ch in c["description"])


async def test_a_hand_is_recorded_with_payments_and_an_undo_button(bot: Harness) -> None:
    await bot.seat()
    entries = await bot.say(CAT, "/hu@jifen_bot Ann zimo qys pph")
    text = entries[0].plain_text
    assert "Bob → Ann 12" in text and "Dan → Ann 12" in text and "base 3 × 4 = 12" in text
    entry, data = undo_button(entries)
    standings = await bot.text(DAN, "/standings")
    assert standings.splitlines()[-4:] == ["1. Ann +36", "2. Bob -12", "3. Cat -12", "4. Dan -12"]
    after = await bot.press(DAN, entry, data)
    assert any("Undone" in e.plain_text for e in after)
    spent = [{"text": "↩️ Undone", "disabled": {}}]  # the button says so, and does nothing
    assert any(e.action == "edited" and e.buttons == [spent] for e in after)
    assert (await bot.text(DAN, "/standings")).splitlines()[-1] == "4. Dan 0"
    # The same (stale) button again: refused with an alert, nothing changes.
    answers = len(bot.api.callback_answers)
    await bot.press(DAN, entry, data)
    assert bot.api.callback_answers[answers].show_alert


async def test_forged_buttons_are_refused(bot: Harness) -> None:
    await bot.seat()
    entries = await bot.say(CAT, "/hu Ann zimo")
    entry, _ = undo_button(entries)
    for forged in ("v1:undo:999999", "garbage", "v1:reset:1", "v9:undo:1", "v1:w:9.zz"):
        before = len(bot.api.callback_answers)
        await bot.press(DAN, entry, forged)
        assert bot.api.callback_answers[before].show_alert, forged
    assert (await bot.text(DAN, "/standings")).splitlines()[1] == "Mahjong points:"
    assert "1. Ann +9" in await bot.text(DAN, "/standings")


async def test_commands_for_other_bots_are_ignored_and_unknown_ones_answered(
    bot: Harness,
) -> None:
    assert await bot.say(ANN, "/new@other_bot mahjong") == []
    # A command nobody answers looks like a bot that is down: an unknown one is answered too.
    assert "unknown command /weather; /help lists the commands" in await bot.text(ANN, "/weather")
    assert "did you mean /standings" in await bot.text(ANN, "/standigns")


async def test_only_admins_reset_and_the_button_is_checked_again(bot: Harness) -> None:
    await bot.seat()
    await bot.say(CAT, "/hu Cat zimo")
    assert "Only group admins" in await bot.text(CAT, "/reset")
    ask = await bot.say(BOB, "/reset")
    confirm = ask[0].buttons[0][0]
    assert confirm["callback_data"].startswith("v1:reset:")
    # A member pressing the admin's Confirm button is refused.
    before = len(bot.api.callback_answers)
    await bot.press(CAT, ask[0], confirm["callback_data"])
    assert bot.api.callback_answers[before].show_alert
    done = await bot.press(ANN, ask[0], confirm["callback_data"])
    assert any("Season 2 begins" in e.plain_text for e in done)
    assert "No hands recorded yet." in await bot.text(CAT, "/standings")
    assert "1. Cat +9" in await bot.text(CAT, "/standings 1")


async def test_anonymous_admin_may_change_settings(bot: Harness) -> None:
    seq = bot.api.last_seq
    update = bot.api.send_as_anonymous_admin(GROUP, "/set sisuang on")
    await bot._process(update, seq)
    assert "死双" in bot.api.outbox_since(seq)[0].plain_text
    assert "Only group admins" in await bot.text(DAN, "/set sisuang off")


async def test_the_chat_keeps_its_first_command_s_language_then_its_setting(
    bot: Harness,
) -> None:
    await bot.seat()  # Ann (English) opened the table: the chat speaks English
    assert (await bot.text(ZHANG, "/standings")).startswith("Standings")  # a Chinese phone too
    await bot.say(ANN, "/set lang zh")
    assert any("\u4e00" <= ch <= "\u9fff" for ch in (await bot.text(DAN, "/help")))
    await bot.say(ANN, "/set lang en")
    assert (await bot.text(ZHANG, "/standings")).startswith("Standings")


async def test_the_export_header_is_in_the_chat_language(bot: Harness) -> None:
    await bot.seat("510k")
    await bot.say(ANN, "/r 1=25 2=35 3=20 4=0/20 out 2 1 3")  # Ann+Cat 22.5, Bob+Dan 7.5
    ledgers = {}
    for lang in ("en", "zh"):
        await bot.say(ANN, f"/set lang {lang}")
        (file,) = [e for e in await bot.say(BOB, "/export") if e.media_kind == "document"]
        assert file.content is not None
        ledgers[lang] = file.content.decode("utf-8-sig").splitlines()
    en, zh = ledgers["en"], ledgers["zh"]
    assert (
        en[0]
        == "time (UTC),table,hand,game,payer,payee,amount,reason,recorded by,undone,tiles,edited"
    )
    assert zh[0] == "时间（UTC）,桌,局,游戏,付分者,收分者,分数,原因,记录人,已撤销,手牌,已修改"
    # the words in the chat's language, names and exact amounts as recorded
    assert [line.split(",")[6:7] for line in zh[1:]] == [line.split(",")[6:7] for line in en[1:]]
    assert {line.split(",")[3] for line in zh[1:]} == {"510K"}
    assert {line.split(",")[7] for line in zh[1:]} == {"得分"}
    assert {line.split(",")[4] for line in zh[1:]} == {"（桌面）"}
    assert sorted(line.split(",")[6] for line in en[1:]) == ["22.5", "22.5", "7.5", "7.5"]


async def test_forum_topics_have_their_own_tables(bot: Harness) -> None:
    await bot.seat("mahjong", FORUM, thread=11)
    await bot.seat("510k", FORUM, thread=22)
    entries = await bot.say(ANN, "/hu Ann zimo", FORUM, thread=11)
    assert entries[0].message_thread_id == 11
    reply = await bot.text(ANN, "/r 1=60 2=0 3=40 4=0 out 1 3", FORUM, thread=22)
    assert "510K hand" in reply
    assert "This is a mahjong command" in await bot.text(ANN, "/hu Ann zimo", FORUM, thread=22)


async def test_group_migration_moves_the_records(bot: Harness) -> None:
    small = Chat(-4000, "group", title="small")
    bot.api.add_chat(small)
    for user in PLAYERS:
        bot.api.set_member(small.id, user, "member")
    await bot.seat("mahjong", small)
    await bot.say(ANN, "/hu Ann zimo", small)
    update = bot.api.migrate_group(small.id, -100777)
    for item in [update, *bot.api.take_updates()]:
        await bot.app.process_update(Update.de_json(item, bot.app.bot))
    new = Chat(-100777, "supergroup", title="small")
    assert "1. Ann +9" in await bot.text(ANN, "/standings", new)


async def test_the_hu_wizard_ends_in_the_typed_command(bot: Harness) -> None:
    await bot.seat()
    screen = (await bot.say(ANN, "/hu"))[0]
    for label in ("2. Bob", "点炮 on a discard", "3. Cat", "碰碰胡 all pungs", "Done", "Record"):
        data = next(b["callback_data"] for row in screen.buttons for b in row if b["text"] == label)
        entries = await bot.press(ANN, screen, data)
        screen = next((e for e in entries if e.message_id == screen.message_id), screen)
    text = "\n".join(e.plain_text for e in entries)
    assert "/hu 2 pao 3 pph" in text and "Cat → Bob 9" in text


async def test_errors_name_the_problem_and_show_the_form(bot: Harness) -> None:
    await bot.seat()
    text = await bot.text(ANN, "/hu Zed zimo")
    assert "No seated player 'Zed'" in text and "1 Ann" in text
    text = await bot.text(ANN, "/r A=5")
    assert "Write it like this" in text


async def test_the_hu_wizard_needs_a_full_mahjong_table(bot: Harness) -> None:
    assert "full mahjong table" in await bot.text(ANN, "/hu")  # nothing recorded yet
    await bot.say(ANN, "/set lang en")  # the chat is known now, still without a table
    assert "full mahjong table" in await bot.text(ANN, "/hu")
    await bot.seat("510k")
    assert "full mahjong table" in await bot.text(ANN, "/hu")
    await bot.say(ANN, "/new mahjong")  # the four keep their seats
    assert "Who won?" in await bot.text(ANN, "/hu")


# --- an evening as phones type it: glued words, regional names, 人胡 with a payer ---


async def test_glued_and_regional_words_score_like_the_spaced_ones(bot: Harness) -> None:
    await bot.seat()
    glued = await bot.text(CAT, "/hu Ann自摸清一色碰碰胡")
    assert "Bob → Ann 12" in glued and "base 3 × 4 = 12" in glued
    assert "Cat → Ann 2" in await bot.text(CAT, "/hu Ann 平胡 点炮Cat")  # 鸡胡: small hand
    dragon = await bot.text(CAT, "/hu Ann 自摸 龙七对")  # 七大对: k = 4, concealed
    assert "Bob → Ann 16" in dragon
    standings = (await bot.text(DAN, "/standings")).splitlines()[-4:]
    assert standings == ["1. Ann +86", "2. Bob -28", "3. Dan -28", "4. Cat -30"]


async def test_rules_list_the_words_for_the_same_thing(bot: Harness) -> None:
    rules = await bot.text(ANN, "/rules")
    assert "鸡胡 = 平胡 屁胡" in rules and "七大对 = 龙七对 龙七" in rules
    assert "点炮 = 放炮 放铳 放冲 接炮" in rules and "豪七 is refused" in rules
    # another chat, whose first command is 张三's: it speaks Chinese
    assert "同义词：自摸 = 自摸胡" in await bot.text(ZHANG, "/rules", FORUM)


async def test_an_ambiguous_word_is_refused_with_the_choices(bot: Harness) -> None:
    await bot.seat()
    text = await bot.text(CAT, "/hu Ann 自摸 豪七")
    assert "counts differently by region" in text and "did you mean" not in text
    assert "No hands recorded yet." in await bot.text(CAT, "/standings")


async def test_renhu_is_paid_by_the_dealer_whether_named_or_not(bot: Harness) -> None:
    await bot.seat()  # Ann (seat 1) deals
    refused = await bot.text(CAT, "/hu Bob renhu Cat")
    assert "人胡 is paid by the dealer" in refused
    assert "No hands recorded yet." in await bot.text(CAT, "/standings")
    named = await bot.text(CAT, "/hu Bob renhu Ann")
    await bot.say(CAT, "/undo")
    unnamed = await bot.text(CAT, "/hu Bob 人胡")
    assert "Ann → Bob 12" in named
    assert named.splitlines()[1:] == unnamed.splitlines()[1:]  # the same payments


# --- Chinese commands: Telegram marks only Latin /commands, so it delivers /胡 … where it
# delivers all text: private chats, replies to the bot, mentions of it, privacy mode off ---


def plain(entries: list[OutboxEntry] | None) -> str:
    assert entries is not None, "Telegram did not deliver the message"
    return "\n".join(e.plain_text for e in entries)


async def test_chinese_commands_where_telegram_delivers_them(bot: Harness) -> None:
    await bot.seat()
    # A group in privacy mode: /胡 is no bot command for Telegram, the bot never sees it ...
    assert await bot.deliver(CAT, "/胡 Ann 自摸") is None
    # ... unless it mentions the bot, or answers one of its messages.
    recorded = await bot.deliver(CAT, "@jifen_bot /胡 Ann 自摸")
    assert "Bob → Ann 3" in plain(recorded)
    assert "Hand #1 — /胡 Ann 自摸\n" in plain(recorded)  # recorded without the mention
    assert recorded is not None and (message_id := recorded[0].message_id)
    assert "1. Ann +9" in plain(await bot.deliver(DAN, "/排名", reply_to=message_id))
    assert "Undone" in plain(await bot.deliver(DAN, "/撤销", reply_to=message_id))
    assert "Bob → Ann 3" in plain(await bot.deliver(CAT, "@jifen_bot /hu Ann zimo"))
    assert "unknown command /weather" in plain(await bot.deliver(DAN, "@jifen_bot /weather"))
    # Delivered but not a command: no answer.
    assert await bot.deliver(DAN, "@jifen_bot 谢谢") == []
    assert await bot.deliver(DAN, "好的", reply_to=message_id) == []


async def test_chinese_commands_in_a_private_chat(bot: Harness) -> None:
    private = Chat.private(ZHANG)
    await bot.deliver(ZHANG, "/new 麻将", private)
    await bot.deliver(ZHANG, "/seats 我 小李 阿张 老王", private)
    assert "小李" in plain(await bot.deliver(ZHANG, "/胡 小李自摸清一色", private))
    assert "1. 小李 +18" in plain(await bot.deliver(ZHANG, "/排名", private))
    assert "小李" in plain(await bot.deliver(ZHANG, "/撤销", private))


async def test_a_group_without_privacy_mode_answers_only_commands(bot: Harness) -> None:
    bot.api.privacy_mode = False  # the bot gets every message of the group
    await bot.seat()
    assert "Bob → Ann 3" in plain(await bot.deliver(CAT, "/胡 Ann 自摸"))
    for chatter in ("胡了！", "/胡说八道", "今天 /排名 怎么样", "/排名榜", "@someone /胡 Ann 自摸"):
        assert await bot.deliver(DAN, chatter) == [], chatter
    wizard = await bot.deliver(ANN, "/胡")  # alone: the buttons, as /hu
    assert wizard is not None and wizard[0].buttons
    assert "1. Ann +9" in plain(await bot.deliver(DAN, "/排名"))


async def test_an_edited_chinese_command_is_not_recorded_again(bot: Harness) -> None:
    bot.api.privacy_mode = False
    await bot.seat()
    seq = bot.api.last_seq
    sent = bot.api.send_text(GROUP, CAT, "/胡 Ann 自摸")
    bot.api.take_updates()
    await bot.app.process_update(Update.de_json(sent, bot.app.bot))
    message = {
        **sent["message"],
        "text": "/胡 Ann 自摸 清一色",
        "edit_date": sent["message"]["date"],
    }
    for edit in (message, {**message, "text": "@jifen_bot /hu Ann zimo qys"}):
        update = {"update_id": bot.api.next_update_id, "edited_message": edit}
        bot.api.next_update_id += 1
        await bot.app.process_update(Update.de_json(update, bot.app.bot))
    assert len(bot.api.outbox_since(seq)) == 1  # the hand, once
    assert "1. Ann +9" in await bot.text(DAN, "/standings")


# --- issue 12: /undo as a reply, the /new and second-undo buttons ---


async def test_undo_as_a_reply_undoes_that_hand(bot: Harness) -> None:
    await bot.seat()
    first = await bot.say(CAT, "/hu Ann zimo")
    await bot.say(CAT, "/hu Bob zimo")
    entry, _ = undo_button(first)
    undone = await bot.deliver(DAN, "/undo", reply_to=entry.message_id)
    assert undone is not None and undone[0].plain_text.startswith("↩️ Undone: hand #1")
    again = await bot.deliver(DAN, "/undo", reply_to=entry.message_id)
    assert again is not None and "undone already" in again[0].plain_text  # its Undo is spent
    standings = await bot.text(DAN, "/standings")
    assert "Bob +9" in standings and "Ann -3" in standings
    # a reply to a message without an Undo button says how to name the hand
    other = await bot.deliver(DAN, "/undo", reply_to=undone[0].message_id)
    assert other is not None and "/undo 7" in other[0].plain_text


async def test_the_new_and_second_undo_buttons(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/gang Ann an")
    ask = await bot.say(BOB, "/new 510k3")
    assert "dropped unpaid" in ask[0].plain_text
    confirm = ask[0].buttons[0][0]["callback_data"]
    await bot.press(BOB, ask[0], confirm)
    table = await bot.text(BOB, "/players")
    assert "510K, three players" in table and "3. Cat" in table
    stale = len(bot.api.callback_answers)
    await bot.press(BOB, ask[0], confirm)  # pressed twice: refused, nothing changes
    assert bot.api.callback_answers[stale].show_alert
    await bot.say(CAT, "/r Ann=50 Bob=30 Cat=20 out Ann Bob")
    near = await bot.say(CAT, "/r Ann=40 Bob=40 Cat=20 out Ann Bob")  # the same order: asked
    both = next(b for row in near[0].buttons for b in row if b["text"] == "Record both")
    await bot.press(CAT, near[0], both["callback_data"])  # another hand, meant
    await bot.say(ANN, "/undo")
    second = await bot.say(BOB, "/undo")
    assert "Ann has just undone a record" in second[0].plain_text
    entry, data = undo_button(second)
    await bot.press(BOB, entry, data)
    await bot.press(CAT, entry, data)  # the second press changes nothing
    assert "Ann 0" in await bot.text(BOB, "/standings")
