"""The /new confirm button: the game, its options and a free game's name ride along, within
Telegram's 64 bytes of callback data; typed, `/new free <name> confirm` confirms too."""

from __future__ import annotations

from bot.commands.callback_data import fits, new_data, new_request, parse_press
from bot.commands.parsing import parse
from scoring.games import Game
from service.requests import NewTable


def test_a_free_table_s_name_rides_in_the_button() -> None:
    asked = NewTable(Game.FREE, name="斗地主")
    data = new_data(41, asked)
    assert fits(data)
    press = parse_press(data)
    assert press is not None and press.action == "new"
    confirmed = new_request(press.arg)
    assert confirmed == NewTable(Game.FREE, name="斗地主", confirm=True, replaces=41)


def test_a_name_too_long_for_the_button_does_not_fit() -> None:
    assert not fits(new_data(2**31 - 1, NewTable(Game.FREE, name="很" * 24)))


def test_only_a_free_table_has_a_name() -> None:
    assert new_request("41:mahjong:0--:斗地主") is None
    assert new_request("41:mahjong:0--") == NewTable(Game.MAHJONG, confirm=True, replaces=41)


def test_new_free_confirm_typed() -> None:
    assert parse("/new free 斗地主 confirm") == NewTable(Game.FREE, name="斗地主", confirm=True)
    assert parse("/new 510k3 confirm") == NewTable(Game.K510_3, confirm=True)
