"""The command table (`bot.commands.catalog`) is the one place a command is declared: no other
module of the bot keys anything by command words; the menu, the admin check and the buttons
derive from it; one handler reads a message's command once and takes every command."""

from __future__ import annotations

import ast
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import Engine
from telegram import Update
from telegram.ext import ExtBot

from bot.app import build_application, set_menu
from bot.chat import buttons
from bot.chat.admin_check import needs_admin_check
from bot.chat.commands import BUTTONS, TableHandler
from bot.commands import catalog
from bot.commands.callback_data import parse_press
from bot.commands.catalog import Who
from bot.commands.parsing import parse
from bot.console.offline import Chat, OfflineBotApi, OfflineRequest, User
from bot.i18n import translator
from bot.settings import Settings
from tests.emulator.api import FakeBotApi
from tests.emulator.request import EmulatorRequest

ROOT = Path(__file__).resolve().parents[2]
TABLE = ROOT / "bot" / "commands" / "catalog.py"
WORDS = frozenset(catalog.WORDS)
#: Keyed by words that are also command words, but no command's declaration.
NOT_COMMANDS = {
    "bot/miniapp/forms.py": "the Mini App's forms, by the kind the page sends",
}


def tables(module: ast.Module) -> Iterator[ast.expr]:
    """The values a module (or a class of it) assigns to its names: where tables are kept (a
    function's dicts are its data, a JSON body, not declarations)."""
    bodies = [module.body, *(c.body for c in module.body if isinstance(c, ast.ClassDef))]
    for statement in (s for body in bodies for s in body):
        if isinstance(statement, ast.Assign | ast.AnnAssign) and statement.value is not None:
            yield statement.value


def keyed(value: ast.expr) -> Iterator[tuple[int, list[str]]]:
    """Each literal collection of strings in `value` with its line: a dict's keys, the strings
    of a tuple, list or set, and the first strings of a sequence of pairs (`(("hu", …), …)`)."""
    for node in ast.walk(value):
        if isinstance(node, ast.Dict):
            yield node.lineno, [k.value for k in node.keys if _text(k)]  # type: ignore[union-attr]
        elif isinstance(node, ast.Tuple | ast.List | ast.Set):
            yield node.lineno, [e.value for e in node.elts if _text(e)]  # type: ignore[attr-defined]
            firsts = [e.elts[0] for e in node.elts if isinstance(e, ast.Tuple) and e.elts]
            yield node.lineno, [f.value for f in firsts if _text(f)]  # type: ignore[attr-defined]


def _text(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def declarations(source: str) -> list[tuple[int, list[str]]]:
    """The module-level collections of `source` keyed by command words: at least two, and most
    of its strings command words."""
    found = []
    pieces = [piece for value in tables(ast.parse(source)) for piece in keyed(value)]
    for line, strings in pieces:
        words = [s for s in strings if s.lower() in WORDS]
        if len(set(words)) >= 2 and 2 * len(words) > len(strings):
            found.append((line, sorted(set(words))))
    return found


def test_the_table_is_the_only_place_a_command_is_declared() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {names}"
        for path in sorted((ROOT / "bot").rglob("*.py"))
        if path != TABLE and str(path.relative_to(ROOT)) not in NOT_COMMANDS
        for line, names in declarations(path.read_text(encoding="utf-8"))
    ]
    assert not wrong, "declare commands only in bot/commands/catalog.py:\n" + "\n".join(wrong)


def test_what_is_let_off_is_keyed_so() -> None:
    for path in NOT_COMMANDS:
        assert declarations((ROOT / path).read_text(encoding="utf-8")), path


def test_the_check_finds_the_tables_that_were_spread() -> None:
    menu = 'MENU = (\n    ("hu", N_("record a win")),\n    ("undo", N_("undo")),\n)\n'
    routes = "COMMANDS = {'hu': h.on_mahjong, 'gang': h.on_mahjong, 'r': h.on_510k}\n"
    aliases = "NAMES = {'胡': 'hu', '杠': 'gang', 'kong': 'gang', 'report': 'r'}\n"
    for source in (menu, routes, aliases):
        assert declarations(source), source
    page = "PAGE = {'standings': 1, 'history': 2, 'record': 3, 'table': 4, 'nothing': 5}\n"
    body = "def view():\n    return {'standings': 1, 'history': 2, 'settle': 3}\n"
    assert not declarations(page) and not declarations(body)
    assert declarations(TABLE.read_text(encoding="utf-8"))  # the table itself is one


def test_each_command_is_declared_once() -> None:
    assert len(catalog.BY_NAME) == len(catalog.COMMANDS)
    every = [w for c in catalog.COMMANDS for w in (c.name, *c.aliases)]
    assert len(every) == len(set(every)) == len(WORDS)
    assert all(c.name.isascii() and c.name.islower() for c in catalog.COMMANDS)  # Telegram's


def test_every_command_with_buttons_has_them() -> None:
    with_buttons = {c.makes[0] for c in catalog.COMMANDS if c.buttons}
    assert set(BUTTONS) == with_buttons
    assert {c.name for c in catalog.COMMANDS if c.buttons} == {"hu", "s"}


@pytest.mark.parametrize(
    ("text", "asks"),
    [
        ("/set lang zh", True),
        ("/reset", True),
        ("/link 小李 @li", True),
        ("/unlink 小李", True),
        ("/merge A B", True),
        ("/settle", True),
        ("/rename A B", True),
        ("/undo 7", True),
        ("/undo", False),
        ("/standings", False),
        ("/hu 1 zimo", False),
        ("/me", False),
        ("/start me", False),
    ],
)
def test_who_may_use_a_command_is_the_tables(text: str, asks: bool) -> None:
    request = parse(text)
    assert needs_admin_check(request) is asks
    command = catalog.MAKERS[type(request)]
    assert (command.who is not Who.ANYONE) is (asks or command.name == "undo")


async def test_the_menu_is_the_tables_in_both_languages(sqlite_engine: Engine) -> None:
    api = FakeBotApi()
    config = Settings.given(token="123:TEST", database_url=str(sqlite_engine.url), flood=None)
    app = build_application(config, engine=sqlite_engine, request=EmulatorRequest(api))
    async with app:
        await set_menu(app)
        for lang in ("en", "zh"):
            for scope in (None, {"type": "all_group_chats"}):
                code = None if lang == "en" else lang
                params = {"language_code": code} | ({"scope": scope} if scope else {})
                shown = api.call("getMyCommands", params)
                _ = translator(lang).gettext
                assert shown == [
                    {"command": c.name, "description": _(c.menu or "")}
                    | ({"is_ephemeral": True} if c.ephemeral else {})
                    for c in catalog.MENU
                ]
    assert [c.name for c in catalog.MENU][:6] == ["hu", "gang", "r", "s", "pay", "undo"]


GROUP = Chat(-100123, "supergroup", "table")
WANG = User.named("老王")


@pytest.fixture
async def api_bot() -> AsyncIterator[tuple[OfflineBotApi, ExtBot[None]]]:
    api = OfflineBotApi()
    async with ExtBot("1:TOKEN", request=OfflineRequest(api)) as bot:  # getMe: jifen_bot
        yield api, bot


def read(bot: ExtBot[None], data: dict[str, Any]) -> str | bool | None:
    """The name of the command the one handler reads (None: unknown); False: not taken."""
    typed = TableHandler().check_update(Update.de_json(data, bot))
    return False if typed is None else typed.name


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("/hu 1 zimo", "hu"),
        ("/hu", "hu"),
        ("/胡 老王 自摸", "hu"),
        ("/hu@jifen_bot 1 zimo", "hu"),
        ("/hu@other_bot 1 zimo", "hu"),  # parsed, then left to that bot
        ("@jifen_bot /standings", "standings"),
        ("/记 老王+3 小李", "s"),
        ("/start", "help"),
        ("/start me", "help"),  # /me's deep link: the record, in the private chat
        ("/me", "me"),
        ("/战绩", "me"),
        ("/mine", "mine"),
        ("/我的", "mine"),
        ("/start mine", "help"),  # /mine's deep link: the accounts, in the private chat
        ("/rating", "rating"),
        ("/summary", "summary"),
        ("/settle", "settle"),
        ("/export 2", "export"),
        ("/set lang zh", "set"),
        ("/foo", None),  # marked by Telegram: answered as unknown
        ("/hu-x", None),
        ("/胡说", False),  # not a command Telegram marks, nor one of ours
        ("@other_bot /hu 1 zimo", False),
        ("hello /hu", False),
    ],
)
async def test_one_handler_takes_every_command(
    api_bot: tuple[OfflineBotApi, ExtBot[None]], text: str, name: str | bool | None
) -> None:
    api, bot = api_bot
    assert read(bot, api.send_text(GROUP, WANG, text)) == name


async def test_only_what_a_member_typed_is_taken(
    api_bot: tuple[OfflineBotApi, ExtBot[None]],
) -> None:
    api, bot = api_bot
    update = api.send_text(GROUP, WANG, "/hu 1 zimo")
    message = update["message"]
    forwarded = {
        **message,
        "forward_origin": {"type": "hidden_user", "date": 1, "sender_user_name": "x"},
    }
    assert read(bot, {"update_id": 90, "message": forwarded}) is False
    assert read(bot, {"update_id": 91, "edited_message": message}) is False


@pytest.mark.parametrize(
    "data", ["v1:undo:7", "v1:reset:3", "v1:new:2:mahjong:0-1", "v1:me:4.9", "v1:cancel", "v1:w:1"]
)
def test_every_button_action_has_a_handler(data: str) -> None:
    press = parse_press(data)
    assert press is not None and press.action in buttons.ACTIONS
