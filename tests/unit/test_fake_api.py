"""The tests' Bot API emulator in-process: FakeBotApi behind a real PTB Bot and Application."""

from __future__ import annotations

import asyncio
import html
import time
from typing import Any, TypeAlias

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.constants import MessageEntityType
from telegram.error import BadRequest, ChatMigrated, Conflict, EndPointNotFound, Forbidden
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CommandHandler,
    ContextTypes,
)

from tests.emulator.api import BOT_USER_ID, Chat, FakeApiError, FakeBotApi, User, parse_html
from tests.emulator.request import EmulatorRequest

GROUP = Chat(-100555, "supergroup", title="table")
FORUM = Chat(-100777, "supergroup", title="forum", is_forum=True)
ALICE = User(1001, "Alice", username="alice_w", language_code="en")
LAO_WANG = User(1002, "老王", language_code="zh")
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big")
UNDO = InlineKeyboardMarkup([[InlineKeyboardButton("Undo", callback_data="v1:undo:1")]])

AnyApp: TypeAlias = Application[Any, Any, Any, Any, Any, Any]


@pytest.fixture
def api() -> FakeBotApi:
    """A fake API knowing one group with Alice (admin) and 老王 (member)."""
    fake = FakeBotApi()
    fake.add_chat(GROUP)
    fake.set_member(GROUP.id, ALICE, "administrator")
    fake.set_member(GROUP.id, LAO_WANG, "member")
    return fake


def offline_bot(api: FakeBotApi) -> Bot:
    """A PTB bot whose requests go to ``api``."""
    return Bot("123:TEST", request=EmulatorRequest(api), get_updates_request=EmulatorRequest(api))


def offline_app(api: FakeBotApi) -> AnyApp:
    """A PTB application whose requests go to ``api``."""
    builder = ApplicationBuilder().token("123:TEST")
    return builder.request(EmulatorRequest(api)).get_updates_request(EmulatorRequest(api)).build()


async def test_bot_sends_edits_and_answers(api: FakeBotApi) -> None:
    async with offline_bot(api) as bot:
        me = await bot.get_me()
        assert (me.id, me.username, me.is_bot) == (BOT_USER_ID, "jifen_bot", True)
        sent = await bot.send_message(GROUP.id, "<b>老王</b> &amp; co", "HTML", reply_markup=UNDO)
        assert sent.text == "老王 & co"
        assert sent.entities[0].type == MessageEntityType.BOLD
        assert sent.reply_markup == UNDO
        update = Update.de_json(api.press_button(GROUP, ALICE, sent.message_id, "v1:undo:1"), bot)
        assert update.callback_query.message.message_id == sent.message_id
        assert await bot.answer_callback_query(update.callback_query.id, "done")
        edited = await bot.edit_message_text("undone", GROUP.id, sent.message_id)
        assert edited.reply_markup is None  # an edit without reply_markup drops the keyboard
        with pytest.raises(BadRequest, match=r"(?i)not modified"):
            await bot.edit_message_text("undone", GROUP.id, sent.message_id)
        assert await bot.delete_message(GROUP.id, sent.message_id)
    actions = [(e.action, e.plain_text, bool(e.buttons)) for e in api.outbox]
    assert actions == [
        ("sent", "老王 & co", True),
        ("edited", "undone", False),
        ("deleted", "undone", False),
    ]
    assert api.outbox[0].text == "<b>老王</b> &amp; co"
    assert api.outbox[0].parse_mode == "HTML"
    assert api.callback_answers[0].text == "done"


async def test_telegram_rejections_surface_as_ptb_errors(api: FakeBotApi) -> None:
    async with offline_bot(api) as bot:
        with pytest.raises(BadRequest, match=r"(?i)unsupported start tag"):
            await bot.send_message(GROUP.id, "1 <b>2</b> <br>", "HTML")
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await bot.send_message(-1, "x")
        with pytest.raises(Forbidden):
            await bot.send_message(ALICE.id, "she never opened a private chat")
        too_long = InlineKeyboardMarkup([[InlineKeyboardButton("x", callback_data="d" * 65)]])
        with pytest.raises(BadRequest, match=r"(?i)BUTTON_DATA_INVALID"):
            await bot.send_message(GROUP.id, "x", reply_markup=too_long)
        with pytest.raises(BadRequest, match=r"(?i)query is too old"):
            await bot.answer_callback_query("42")
        with pytest.raises(EndPointNotFound):
            await bot.do_api_request("noSuchMethod")
    with pytest.raises(FakeApiError) as caught:
        api.call("noSuchMethod", {})
    assert caught.value.error_code == 404
    assert api.call("GETME")["username"] == "jifen_bot"  # method names are case-insensitive


def test_parse_html_offsets_are_utf16() -> None:
    text, entities = parse_html('😀 <i>老王</i> <a href="https://x.org/?a=1&amp;b=2">link</a>')
    assert text == "😀 老王 link"
    assert entities == [
        {"type": "italic", "offset": 3, "length": 2},
        {"type": "text_link", "offset": 6, "length": 4, "url": "https://x.org/?a=1&b=2"},
    ]
    with pytest.raises(FakeApiError, match=r"(?i)end tag"):
        parse_html("<b>open")


async def test_update_builders_de_json(api: FakeBotApi) -> None:
    async with offline_bot(api) as bot:
        command = Update.de_json(api.send_text(GROUP, LAO_WANG, "/hu 老王 zimo qys"), bot)
        entity = command.message.entities[0]
        assert (entity.type, entity.offset, entity.length) == ("bot_command", 0, 3)
        assert command.effective_user.language_code == "zh"
        assert command.effective_chat.type == "supergroup"
        anonymous = Update.de_json(api.send_as_anonymous_admin(GROUP, "/undo"), bot)
        assert anonymous.message.sender_chat.id == GROUP.id
        topic = Update.de_json(api.send_text(FORUM, ALICE, "/standings", thread_id=5), bot)
        assert (topic.message.message_thread_id, topic.message.is_topic_message) == (5, True)
        reply = await topic.message.reply_text("ok")
        assert reply.message_thread_id == 5
        migrated = Update.de_json(api.migrate_group(GROUP.id, -100999), bot)
        assert migrated.message.migrate_to_chat_id == -100999
        with pytest.raises(ChatMigrated):
            await bot.send_message(GROUP.id, "old id")
    kinds = [next(k for k in u if k != "update_id") for u in api.pending_updates()]
    assert kinds == ["message"] * 5
    ids = [u["update_id"] for u in api.pending_updates()]
    assert ids == sorted(ids)


def test_privacy_mode_hides_plain_group_messages(api: FakeBotApi) -> None:
    api.send_text(GROUP, ALICE, "hello everyone")
    api.send_text(GROUP, ALICE, "/standings@other_bot")
    assert api.pending_updates() == []
    api.send_text(GROUP, ALICE, "/standings@jifen_bot")
    api.send_text(GROUP, ALICE, "hey @jifen_bot")
    api.send_text(ALICE.id, ALICE, "hello in private")
    assert len(api.pending_updates()) == 3


async def test_members_commands_and_webhook(api: FakeBotApi) -> None:
    async with offline_bot(api) as bot:
        assert (await bot.get_chat_member(GROUP.id, ALICE.id)).status == "administrator"
        assert (await bot.get_chat_member(GROUP.id, LAO_WANG.id)).status == "member"
        admins = await bot.get_chat_administrators(GROUP.id)
        assert [a.user.id for a in admins] == [ALICE.id]
        assert (await bot.get_chat(GROUP.id)).title == "table"
        with pytest.raises(BadRequest, match=r"(?i)user not found"):
            await bot.get_chat_member(GROUP.id, 999)
        assert await bot.set_my_commands([("hu", "record a win")], language_code="zh")
        assert await bot.get_my_commands() == ()
        assert [c.command for c in await bot.get_my_commands(language_code="zh")] == ["hu"]
        assert await bot.set_webhook("https://example.org/hook", secret_token="s3cret")
        assert (await bot.get_webhook_info()).url == "https://example.org/hook"
        with pytest.raises(Conflict):
            await bot.get_updates()
        assert await bot.delete_webhook()
        assert await bot.send_chat_action(GROUP.id, "typing")


async def test_get_updates_offset_confirms(api: FakeBotApi) -> None:
    for text in ("/a", "/b", "/c"):
        api.send_text(GROUP, ALICE, text)
    async with offline_bot(api) as bot:
        first = await bot.get_updates(limit=2)
        assert [u.message.text for u in first] == ["/a", "/b"]
        rest = await bot.get_updates(offset=first[-1].update_id + 1, timeout=0)
        assert [u.message.text for u in rest] == ["/c"]
        started = time.monotonic()
        assert await bot.get_updates(offset=rest[-1].update_id + 1, timeout=1) == ()
        assert time.monotonic() - started >= 0.9  # long polling waits for the timeout


async def test_photos_and_documents(api: FakeBotApi) -> None:
    async with offline_bot(api) as bot:
        photo = await bot.send_photo(GROUP.id, PNG, caption="<b>chart</b>", parse_mode="HTML")
        assert (photo.photo[-1].width, photo.photo[-1].height) == (640, 480)
        assert photo.caption == "chart"
        document = await bot.send_document(GROUP.id, b"a,b\n1,2\n", filename="ledger.csv")
        assert document.document.file_name == "ledger.csv"
        downloaded = await (await bot.get_file(document.document.file_id)).download_as_bytearray()
        assert bytes(downloaded) == b"a,b\n1,2\n"
        with pytest.raises(BadRequest, match=r"(?i)IMAGE_PROCESS_FAILED"):
            await bot.send_photo(GROUP.id, b"not an image")
    photo_entry, document_entry = api.outbox
    assert (photo_entry.media_kind, photo_entry.content, photo_entry.caption) == (
        "photo",
        PNG,
        "<b>chart</b>",
    )
    assert (document_entry.media_kind, document_entry.filename) == ("document", "ledger.csv")


async def _echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Reply with the arguments, the sender's status and an Undo button."""
    assert update.effective_message and update.effective_chat and update.effective_user
    member = await context.bot.get_chat_member(update.effective_chat.id, update.effective_user.id)
    words = html.escape(" ".join(context.args or []))
    await update.effective_message.reply_html(
        f"<b>{html.escape(update.effective_user.first_name)}</b> ({member.status}): {words}",
        reply_markup=UNDO,
    )


def echo_app(api: FakeBotApi) -> AnyApp:
    """/echo, non-blocking (as handlers may be)."""
    app = offline_app(api)
    app.add_handler(CommandHandler("echo", _echo, block=False))
    return app


async def test_command_handler_via_process_update(api: FakeBotApi) -> None:
    app = echo_app(api)
    async with app:
        await app.start()
        update = api.send_text(GROUP, LAO_WANG, "/echo 自摸 <qys>")
        await app.process_update(Update.de_json(update, app.bot))
        for _ in range(200):  # /echo is non-blocking
            if api.outbox:
                break
            await asyncio.sleep(0.05)
        await app.stop()
    entry = api.outbox[0]
    assert entry.plain_text == "老王 (member): 自摸 <qys>"
    assert entry.reply_to_message_id == update["message"]["message_id"]
    assert entry.buttons[0][0]["text"] == "Undo"


async def test_application_polls_offline(api: FakeBotApi) -> None:
    app = echo_app(api)
    async with app:
        assert app.updater is not None
        await app.updater.start_polling(poll_interval=0, timeout=5)
        await app.start()
        api.send_text(GROUP, ALICE, "/echo polled")
        for _ in range(200):
            if api.outbox:
                break
            await asyncio.sleep(0.05)
        await app.updater.stop()
        await app.stop()
    assert api.outbox[0].plain_text == "Alice (administrator): polled"
    assert api.pending_updates() == []
