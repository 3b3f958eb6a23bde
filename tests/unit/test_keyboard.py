"""A reply's buttons go as JSON built by hand (`bot.chat.replying.keyboard`): the same bytes PTB's
InlineKeyboardMarkup sends."""

from __future__ import annotations

from telegram.request._requestparameter import RequestParameter

from bot.chat.replying import keyboard
from bot.presentation.markup import markup
from bot.presentation.render import Button, Out


def test_keyboard_sends_what_markup_sends() -> None:
    rows = ((Button("撤销 <b>&", 'u:1"'), Button("Undo", "u:2")), (Button("A", "c"),))
    for out in (Out("x", rows), Out("x", rows[1:])):
        given = keyboard(out)
        assert given is not None
        sent = RequestParameter.from_input("reply_markup", given["reply_markup"])
        assert (
            sent.json_value == RequestParameter.from_input("reply_markup", markup(out)).json_value
        )


def test_no_buttons_no_keyboard() -> None:
    assert keyboard(Out("x")) is None
    assert markup(Out("x")) is None
