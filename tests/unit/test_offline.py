"""The offline console: its Bot API stand-in behind a real PTB Bot, and the console itself."""

from __future__ import annotations

import html
import io
import time
from pathlib import Path
from typing import Any, TypeAlias

import pytest
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, EndPointNotFound
from telegram.ext import (
    Application,
    ApplicationBuilder,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
)

from bot.console.offline import BOT_USER_ID, Chat, OfflineBotApi, OfflineRequest, User
from bot.console.session import console_user, parse_line, run_console

GROUP = Chat(-100555, "supergroup", title="table")
ALICE = User(1001, "Alice", username="alice_w", language_code="en")
LAO_WANG = User(1002, "老王", language_code="zh")
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (640).to_bytes(4, "big") + (480).to_bytes(4, "big")
UNDO = InlineKeyboardMarkup([[InlineKeyboardButton("Undo", callback_data="v1:undo:1")]])

AnyApp: TypeAlias = Application[Any, Any, Any, Any, Any, Any]


@pytest.fixture
def api() -> OfflineBotApi:
    """A stand-in knowing one group with Alice (admin) and 老王 (member)."""
    fake = OfflineBotApi()
    fake.add_chat(GROUP)
    fake.set_member(GROUP.id, ALICE, "administrator")
    fake.set_member(GROUP.id, LAO_WANG, "member")
    return fake


def offline_bot(api: OfflineBotApi) -> Bot:
    return Bot("123:TEST", request=OfflineRequest(api), get_updates_request=OfflineRequest(api))


async def test_the_calls_of_the_bot(api: OfflineBotApi) -> None:
    async with offline_bot(api) as bot:
        me = await bot.get_me()
        assert (me.id, me.username, me.is_bot) == (BOT_USER_ID, "jifen_bot", True)
        assert await bot.set_my_commands([("hu", "record a win")], language_code="zh")
        assert (await bot.get_chat_member(GROUP.id, ALICE.id)).status == "administrator"
        assert (await bot.get_chat_member(GROUP.id, LAO_WANG.id)).status == "member"
        with pytest.raises(BadRequest, match=r"(?i)user not found"):
            await bot.get_chat_member(GROUP.id, 999)
        sent = await bot.send_message(GROUP.id, "<b>老王</b> &amp; co", "HTML", reply_markup=UNDO)
        assert (sent.text, sent.reply_markup) == ("老王 & co", UNDO)
        press = Update.de_json(api.press_button(GROUP, ALICE, sent.message_id, "v1:undo:1"), bot)
        assert press.callback_query.message.message_id == sent.message_id
        assert await bot.answer_callback_query(press.callback_query.id, "done", show_alert=True)
        with pytest.raises(BadRequest, match=r"(?i)query is too old"):
            await bot.answer_callback_query(press.callback_query.id)
        assert await bot.edit_message_reply_markup(GROUP.id, sent.message_id)
        with pytest.raises(BadRequest, match=r"(?i)not modified"):
            await bot.edit_message_reply_markup(GROUP.id, sent.message_id)
        edited = await bot.edit_message_text(
            "<i>undone</i>", GROUP.id, sent.message_id, parse_mode="HTML"
        )
        assert (edited.text, edited.reply_markup) == ("undone", None)
        photo = await bot.send_photo(GROUP.id, PNG, caption="<b>chart</b>", parse_mode="HTML")
        assert photo.caption == "chart" and photo.photo
        document = await bot.send_document(GROUP.id, b"a,b\n", filename="ledger.csv")
        assert document.document.file_name == "ledger.csv"
        with pytest.raises(BadRequest, match=r"(?i)chat not found"):
            await bot.send_message(-1, "x")
        with pytest.raises(EndPointNotFound):
            await bot.do_api_request("noSuchMethod")
    seen = [(e.action, e.plain_text, bool(e.buttons), e.media_kind) for e in api.outbox]
    assert seen == [
        ("sent", "老王 & co", True, None),
        ("edited", "老王 & co", False, None),
        ("edited", "undone", False, None),
        ("sent", "chart", False, "photo"),
        ("sent", "", False, "document"),
    ]
    assert [(a.text, a.show_alert) for a in api.callback_answers] == [("done", True)]
    assert api.outbox[3].file is not None and api.outbox[3].file.content == PNG


def test_privacy_mode_hides_plain_group_messages(api: OfflineBotApi) -> None:
    api.send_text(GROUP, ALICE, "hello everyone")
    api.send_text(GROUP, ALICE, "/standings@other_bot")
    assert api.take_updates() == []
    command = api.send_text(GROUP, LAO_WANG, "/hu@Jifen_Bot 老王 zimo")
    api.send_text(GROUP, ALICE, "hey @jifen_bot")
    delivered = [u["update_id"] for u in api.take_updates()]
    assert delivered == [command["update_id"], command["update_id"] + 1]
    entities = command["message"]["entities"]
    assert entities == [{"type": "bot_command", "offset": 0, "length": 13}]


async def _echo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Reply with the sender, their status, the arguments and an Undo button."""
    assert update.effective_message and update.effective_chat and update.effective_user
    user = update.effective_user
    member = await context.bot.get_chat_member(update.effective_chat.id, user.id)
    words = html.escape(" ".join(context.args or []))
    await update.effective_message.reply_html(
        f"<b>{html.escape(user.first_name)}</b> #{user.id} ({member.status}): {words}",
        reply_markup=UNDO,
    )


async def _chart(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Send a picture and a file."""
    assert update.effective_message
    await update.effective_message.reply_photo(PNG, caption="Balances", filename="chart.png")
    await update.effective_message.reply_document(b"x;y\n", filename="ledger.csv")


async def _undo(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Answer the press and edit the message."""
    query = update.callback_query
    assert query and query.from_user
    await query.answer("undone")
    await query.edit_message_text(f"undone by {query.from_user.first_name}")


def echo_app(api: OfflineBotApi) -> AnyApp:
    """/echo (non-blocking, as handlers may be), /chart and an Undo button."""
    builder = ApplicationBuilder().token("123:TEST").request(OfflineRequest(api))
    app = builder.get_updates_request(OfflineRequest(api)).build()
    app.add_handler(CommandHandler("echo", _echo, block=False))
    app.add_handler(CommandHandler("chart", _chart))
    app.add_handler(CallbackQueryHandler(_undo))
    return app


def test_parse_line() -> None:
    assert parse_line("Alice: /hu me zimo", "me") == ("Alice", "/hu me zimo")
    assert parse_line("老王：/join", "me") == ("老王", "/join")
    assert parse_line("/r A=30 B=10 out A", "Bob") == ("Bob", "/r A=30 B=10 out A")
    assert parse_line("Old Wang: [Undo]", "me") == ("Old Wang", "[Undo]")
    assert parse_line("  # a comment", "me") is None
    assert parse_line("   ", "me") is None


async def test_run_console_end_to_end(tmp_path: Path) -> None:
    api = OfflineBotApi()
    out = io.StringIO()
    lines = [
        "# a comment, then a blank line",
        "",
        "Alice: /echo hello <all>",
        "/echo again",
        "Bob: /echo hi",
        "just chatting",
        "老王: [Undo]",
        "[Undo]",
        "Bob: /chart",
    ]
    before = int(time.time() * 1000)
    await run_console(echo_app(api), api, lines, out, admins=["ALICE"], files_dir=tmp_path / "f")
    alice, bob = console_user("Alice").id, console_user("Bob").id
    blocks = out.getvalue().split("\n\n")
    assert blocks[:3] == [
        f"Alice #{alice} (administrator): hello <all>\n[Undo]",
        f"Alice #{alice} (administrator): again\n[Undo]",
        f"Bob #{bob} (member): hi\n[Undo]",
    ]
    assert blocks[3].startswith("(the bot does not see this")
    # each press hits the latest message still showing an Undo button: Bob's, then Alice's
    assert blocks[4:8] == ["(toast) undone", "undone by 老王"] * 2
    assert [e.message_id for e in api.outbox if e.action == "edited"] == [6, 4]
    assert blocks[8] == f"(photo) {tmp_path / 'f' / 'chart.png'}\nBalances"
    assert blocks[9] == f"(file) {tmp_path / 'f' / 'ledger.csv'}"
    assert (tmp_path / "f" / "chart.png").read_bytes() == PNG
    assert api.outbox[0].chat_id == -100100
    assert min(u.seq for u in api.outbox) == 1
    assert api.next_update_id > before


async def test_run_console_reads_streams_and_keeps_people(tmp_path: Path) -> None:
    api = OfflineBotApi()
    out = io.StringIO()
    await run_console(echo_app(api), api, io.StringIO("Zoë: /echo one\n"), out, files_dir=tmp_path)
    first_update_id = api.next_update_id
    await run_console(
        echo_app(api), api, io.StringIO("Zoë: [Nothing]\nZoë: /echo two\n"), out, files_dir=tmp_path
    )
    zoe = console_user("Zoë").id
    assert console_user("zoë").id == zoe  # the same person whatever the case
    assert api.next_update_id > first_update_id
    assert "(no button [Nothing] on the bot's messages)" in out.getvalue()
    assert out.getvalue().startswith(f"Zoë #{zoe} (member): one\n[Undo]\n\n")
    assert out.getvalue().endswith(f"Zoë #{zoe} (member): two\n[Undo]\n\n")
