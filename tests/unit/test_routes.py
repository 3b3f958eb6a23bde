"""The routing tables: every command has a handler, every button action too, and a command
reaches its family's handler whichever way it is typed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from telegram import Update
from telegram.ext import ExtBot

from bot.chat import beyond, buttons, handlers, routes
from bot.chat.origin import typed_command
from bot.commands import catalog
from bot.commands.callback_data import parse_press
from bot.console.offline import Chat, OfflineBotApi, OfflineRequest, User


def test_every_command_has_a_handler() -> None:
    assert set(routes.COMMANDS) == set(catalog.BY_NAME)
    assert {command.name for command in catalog.WORDS.values()} <= set(routes.COMMANDS)


def test_each_family_is_registered_once_with_its_names() -> None:
    families = routes.families()
    assert len({handler for handler, _ in families}) == len(families)
    names = [name for _, found in families for name in found]
    assert sorted(names) == sorted(routes.COMMANDS)
    assert families[0] == (handlers.on_mahjong, frozenset({"hu", "gang", "liuju"}))


@pytest.mark.parametrize(
    "data", ["v1:undo:7", "v1:reset:3", "v1:new:2:mahjong:0-1", "v1:me:4.9", "v1:cancel", "v1:w:1"]
)
def test_every_button_action_has_a_handler(data: str) -> None:
    press = parse_press(data)
    assert press is not None and press.action in buttons.ACTIONS


GROUP = Chat(-100123, "supergroup", "table")
WANG = User.named("老王")


@pytest.fixture
async def api_bot() -> AsyncIterator[tuple[OfflineBotApi, ExtBot[None]]]:
    api = OfflineBotApi()
    async with ExtBot("1:TOKEN", request=OfflineRequest(api)) as bot:  # getMe: jifen_bot
        yield api, bot


def routed(bot: ExtBot[None], data: dict[str, Any]) -> Any:
    """The handler whose filter takes the update first, as the Application tries them."""
    update = Update.de_json(data, bot)
    for handler, names in routes.families():
        if routes.Named(names).check_update(update):
            return handler
    return routes.UNKNOWN if routes.Named(None).check_update(update) else None


@pytest.mark.parametrize(
    ("text", "handler"),
    [
        ("/hu 1 zimo", handlers.on_mahjong),
        ("/hu", handlers.on_mahjong),
        ("/胡 老王 自摸", handlers.on_mahjong),
        ("/hu@jifen_bot 1 zimo", handlers.on_mahjong),
        ("/hu@other_bot 1 zimo", handlers.on_mahjong),  # parsed, then left to that bot
        ("@jifen_bot /standings", handlers.on_views),
        ("/记 老王+3 小李", handlers.on_free),
        ("/start", beyond.on_help),
        ("/start me", beyond.on_help),  # /me's deep link: the record, in the private chat
        ("/me", beyond.on_me),
        ("/我的", beyond.on_me),
        ("/rating", handlers.on_views),
        ("/summary", beyond.on_summary),
        ("/settle", beyond.on_settle),
        ("/export 2", handlers.on_files),
        ("/set lang zh", handlers.on_admin),
        ("/foo", handlers.on_unknown),
        ("/hu-x", handlers.on_unknown),
        ("/胡说", None),  # not a command Telegram marks, nor one of ours
        ("@other_bot /hu 1 zimo", None),
        ("hello /hu", None),
    ],
)
async def test_a_command_reaches_its_family(
    api_bot: tuple[OfflineBotApi, ExtBot[None]], text: str, handler: Any
) -> None:
    api, bot = api_bot
    assert routed(bot, api.send_text(GROUP, WANG, text)) is handler


async def test_only_what_a_member_typed_is_routed(
    api_bot: tuple[OfflineBotApi, ExtBot[None]],
) -> None:
    api, bot = api_bot
    update = api.send_text(GROUP, WANG, "/hu 1 zimo")
    message = update["message"]
    forwarded = {
        **message,
        "forward_origin": {"type": "hidden_user", "date": 1, "sender_user_name": "x"},
    }
    assert routed(bot, {"update_id": 90, "message": forwarded}) is None
    assert routed(bot, {"update_id": 91, "edited_message": message}) is None


async def test_the_command_is_read_once_per_update(
    api_bot: tuple[OfflineBotApi, ExtBot[None]],
) -> None:
    api, bot = api_bot
    update = Update.de_json(api.send_text(GROUP, WANG, "@jifen_bot /hu 1 zimo"), bot)
    first = typed_command(update)
    assert first is not None and first.text == "/hu 1 zimo" and first.name == "hu"
    assert typed_command(update) is first
