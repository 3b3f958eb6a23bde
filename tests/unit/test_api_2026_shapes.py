"""Issue 40, points 3-5, piece by piece: the JSON of sendRichMessage and answerGuestQuery as
core.telegram.org/bots/api documents them, a table's content the same as its text's (a
property), guest lines read as the requests they are, and the console's stand-in of the Bot
API learning the new methods."""

from __future__ import annotations

import io
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.engine import Engine
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup, Update

from bot.app import build_application, set_menu
from bot.chat.guest import guest_request, line_of
from bot.commands.parsing import ParseError
from bot.console.offline import Chat, OfflineBotApi, OfflineRequest, User
from bot.console.session import GUEST_CHAT, run_console
from bot.delivery.bot_api import guest_result, send_rich, sendrich_params
from bot.i18n import translator
from bot.presentation.render import Renderer
from bot.presentation.render_rich import Grid, Sheet, blocks, plain, standings_sheet
from bot.settings import Settings
from scoring.games import Unit
from service.errors import ServiceError
from service.guest import NEEDS_THE_BOT
from service.replies import StandingsView
from service.requests import GuestRound, History, Pay, Score, Settle, Standings

GROUP = Chat(-100556, "supergroup", title="table")
WANG = User(1002, "老王", language_code="zh")


def test_send_rich_message_parameters() -> None:
    markup = InlineKeyboardMarkup([[InlineKeyboardButton("Archive", callback_data="v1:x")]])
    block = {"type": "paragraph", "text": "hi"}
    params = sendrich_params(-100, [block], thread_id=7, markup=markup)
    assert params == {
        "chat_id": -100,
        "message_thread_id": 7,
        "rich_message": {"blocks": [block]},
        "reply_markup": {"inline_keyboard": [[{"text": "Archive", "callback_data": "v1:x"}]]},
    }
    assert sendrich_params(-100, [block]) == {"chat_id": -100, "rich_message": {"blocks": [block]}}


NUMBERS = frozenset({0, 2})


def test_a_sheet_as_rich_blocks() -> None:
    sheet = Sheet(
        "Standings of season 1:",
        (
            Grid(
                "Mahjong points",
                ("#", "Player", "Balance"),
                (("1", "老王", "+36"),),
                frozenset({0, 2}),
            ),
        ),
        ("(note)",),
    )
    assert blocks(sheet) == [
        {"type": "heading", "text": "Standings of season 1:", "size": 3},
        {
            "type": "table",
            "cells": [
                [
                    {"text": "#", "align": "right", "valign": "middle", "is_header": True},
                    {"text": "Player", "align": "left", "valign": "middle", "is_header": True},
                    {"text": "Balance", "align": "right", "valign": "middle", "is_header": True},
                ],
                [
                    {"text": "1", "align": "right", "valign": "middle"},
                    {"text": "老王", "align": "left", "valign": "middle"},
                    {"text": "+36", "align": "right", "valign": "middle"},
                ],
            ],
            "is_bordered": True,
            "is_striped": True,
            "is_compact": True,
            "caption": "Mahjong points",
        },
        {"type": "paragraph", "text": "(note)"},
    ]


def test_the_guest_answer_is_an_html_article() -> None:
    assert guest_result("q1", "jifen", "<b>第 1 局</b>").to_dict() == {
        "type": "article",
        "id": "q1",
        "title": "jifen",
        "input_message_content": {"message_text": "<b>第 1 局</b>", "parse_mode": "HTML"},
    }


NAMES = (
    st.text(alphabet="老王小李阿张<>&'\" AbC", min_size=1, max_size=8).map(str.strip).filter(bool)
)
AMOUNTS = st.fractions(min_value=-1000, max_value=1000, max_denominator=12)


@given(
    rows=st.lists(st.tuples(NAMES, AMOUNTS), min_size=1, max_size=8, unique_by=lambda r: r[0]),
    lang=st.sampled_from(["en", "zh"]),
)
def test_the_table_holds_what_the_text_says(rows: list[tuple[str, Fraction]], lang: str) -> None:
    """One model, two renderings: each row of the table is a line of the text, in order."""
    view = StandingsView(1, False, ((Unit.MAHJONG.value, tuple(rows)),))
    renderer = Renderer(lang)
    text = plain(renderer.render(view).text).splitlines()
    sheet = standings_sheet(renderer._, view)
    assert sheet is not None and sheet.title == text[0]
    [grid] = sheet.grids
    assert [f"{i}. {name} {amount}" for i, name, amount in grid.rows] == text[2 : 2 + len(rows)]
    assert grid.caption + ("：" if lang == "zh" else ":") == text[1]
    assert all(note in text for note in sheet.notes)


@pytest.mark.parametrize(
    ("text", "request_"),
    [
        ("@jifen_bot", Standings()),
        ("@Jifen_Bot  ", Standings()),
        ("@jifen_bot /standings", Standings()),
        ("@jifen_bot /history", History()),
        ("@jifen_bot /settle money", Settle(money=True)),
    ],
)
def test_guest_lines(text: str, request_: Any) -> None:
    assert guest_request(text, "jifen_bot")[0] == request_


def test_a_transfer_in_guest_mode() -> None:
    request, typed = guest_request("@jifen_bot /pay 老王 小李 5", "jifen_bot")
    assert typed == "/pay 老王 小李 5"
    assert isinstance(request, GuestRound) and isinstance(request.record, Pay)
    assert request.record.amount == 5


def test_a_free_line_is_a_round_as_s_writes_it() -> None:
    request, typed = guest_request("@jifen_bot 老王+30 小李-30 阿张", "jifen_bot")
    assert typed == "/s 老王+30 小李-30 阿张"
    assert isinstance(request, GuestRound) and isinstance(request.record, Score)
    assert [e.player.value for e in request.record.entries] == ["老王", "小李", "阿张"]
    assert line_of("老王+30 @jifen_bot 小李", "@jifen_bot") == "老王+30   小李"
    assert line_of("@jifen_bot老王+30 小李", "jifen_bot") == "老王+30 小李"
    assert line_of("@jifen_bots 老王+30", "jifen_bot") == "@jifen_bots 老王+30"


@pytest.mark.parametrize(
    "text",
    ["@jifen_bot /hu 老王 自摸", "@jifen_bot /new mahjong", "@jifen_bot /r", "@jifen_bot /reset"],
)
def test_what_needs_the_bot_in_the_group(text: str) -> None:
    with pytest.raises(ServiceError) as refused:
        guest_request(text, "jifen_bot")
    assert refused.value.msgid == NEEDS_THE_BOT
    assert "把我加进群" in translator("zh").gettext(NEEDS_THE_BOT)


def test_a_bad_free_line_is_a_parse_error() -> None:
    with pytest.raises(ParseError):
        guest_request("@jifen_bot +30", "jifen_bot")


# ---------------------------------------------------------------- the console's stand-in


async def test_the_console_learns_menus_tables_and_guests(sqlite_engine: Engine) -> None:
    api = OfflineBotApi()
    api.add_chat(GROUP)
    config = Settings.given(token="123:TEST", database_url=str(sqlite_engine.url), flood=None)
    app = build_application(config, engine=sqlite_engine, request=OfflineRequest(api))
    async with app:
        await set_menu(app)
        scope = {"type": "all_chat_administrators"}
        zh = await app.bot.get_my_commands(scope=None, language_code="zh")
        assert zh and zh[0].command == "hu"
        respond = api.respond("getMyCommands", {"scope": scope, "language_code": "zh"})
        assert "reset" in {c["command"] for c in respond[1]["result"]}
        calls = api.last_seq
        await set_menu(app)  # nothing new: nothing sent
        assert api.last_seq == calls
        update = Update.de_json(api.guest_text(GROUP, WANG, "@jifen_bot 老王+30 小李"), app.bot)
        await app.process_update(update)
        [answer] = api.outbox_since(calls)
        assert "老王 +30" in answer.plain_text and answer.chat_id == GROUP.id
        status, body = api.respond("sendRichMessage", {"chat_id": GROUP.id})
        assert status == 404 and body["description"] == "Not Found"
        api.rich_messages = True
        bot: Bot = app.bot
        sent = await send_rich(bot, GROUP.id, [{"type": "table", "cells": [[{"text": "a"}]]}])
        assert sent.chat.id == GROUP.id
        assert api.outbox[-1].plain_text == "a"


async def test_a_guest_line_typed_in_the_console(sqlite_engine: Engine, tmp_path: Any) -> None:
    api = OfflineBotApi()
    config = Settings.given(token="123:TEST", database_url=str(sqlite_engine.url), flood=None)
    app = build_application(config, engine=sqlite_engine, request=OfflineRequest(api))
    out = io.StringIO()
    lines = ["老王 (guest): @jifen_bot 老王+30 小李-30 阿张", "@jifen_bot /hu 老王 自摸"]
    await run_console(app, api, lines, out, files_dir=tmp_path / "f")
    blocks = out.getvalue().split("\n\n")
    assert blocks[0].startswith(GUEST_CHAT + "\n🎲 第 1 轮 — /s 老王+30 小李-30 阿张"), blocks
    assert "现在总分：老王 +30 · 小李 -30 · 阿张 0" in blocks[0]
    assert "把我加进群" in blocks[1]  # the speaker is still the guest
