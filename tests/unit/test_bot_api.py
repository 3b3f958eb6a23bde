"""bot/delivery/bot_api.py: the JSON of what PTB 22.8 does not know, against the Bot API's
documented shapes (EphemeralMessageParameters, BotCommand.is_ephemeral, the disabled button,
a button's style, CopyTextButton), what send_ephemeral does when the API refuses, and the
emulator checking the same shapes; /settle's copy buttons within a keyboard's limit."""

from __future__ import annotations

from fractions import Fraction

import pytest
from telegram import Bot
from telegram.error import NetworkError

from bot.delivery.bot_api import (
    disabled_button,
    ephemeral_parameters,
    menu_command,
    send_ephemeral,
)
from bot.presentation.markup import MAX_BUTTONS, markup
from bot.presentation.out import DANGER, SUCCESS, Button, Out
from bot.presentation.render import Renderer
from bot.presentation.render_money import copy_buttons
from service.replies import MoneyView
from tests.emulator.api import Chat, FakeApiError, FakeBotApi, User
from tests.emulator.request import EmulatorRequest

GROUP = Chat(-100900, "supergroup", title="table")
WANG = User(2001, "老王", language_code="zh")
LI = User(2002, "小李", language_code="zh")


def test_ephemeral_parameters_are_documented_shapes() -> None:
    assert ephemeral_parameters(42) == {"receiver_user_id": 42}
    assert ephemeral_parameters(42, "77") == {
        "receiver_user_id": 42,
        "callback_query_id": "77",
        "replace_callback_query_message": False,
    }


def test_buttons_and_commands_as_json() -> None:
    assert disabled_button("↩️ 已撤销").to_dict() == {"text": "↩️ 已撤销", "disabled": {}}
    assert menu_command("mine", "我的账", ephemeral=True).to_dict() == {
        "command": "mine",
        "description": "我的账",
        "is_ephemeral": True,
    }
    assert menu_command("hu", "胡").to_dict() == {"command": "hu", "description": "胡"}
    out = Out(
        "x",
        (
            (
                Button("Undo", "v1:undo:1", style=DANGER),
                Button("Again", "v1:again:1", style=SUCCESS),
            ),
            (Button("📋 A → B 3", copy="A → B 3"), Button("Cancel", "v1:cancel")),
        ),
    )
    keyboard = markup(out)
    assert keyboard is not None
    assert keyboard.to_dict() == {
        "inline_keyboard": [
            [
                {"text": "Undo", "callback_data": "v1:undo:1", "style": "danger"},
                {"text": "Again", "callback_data": "v1:again:1", "style": "success"},
            ],
            [
                {"text": "📋 A → B 3", "copy_text": {"text": "A → B 3"}},
                {"text": "Cancel", "callback_data": "v1:cancel"},
            ],
        ]
    }


def test_copy_buttons_stay_within_the_keyboard_the_rest_in_the_text() -> None:
    payments = [(f"P{i}", "Z", str(i)) for i in range(150)]
    rows = copy_buttons(payments, taken=1)
    assert len(rows) == MAX_BUTTONS - 1
    assert rows[0] == (Button("📋 P0 → Z 0", copy="P0 → Z 0"),)
    assert copy_buttons([("A" * 200, "B" * 60, "1")], 0) == ()  # over 256 characters: text only
    view = MoneyView(
        season=1,
        transfers=tuple((f"P{i}", "Z", Fraction(i + 1)) for i in range(150)),
        games=(("mahjong", Fraction(1)),),
        left_out=(),
        rounded=False,
        archive=7,
    )
    out = Renderer("en").render(view)
    assert sum(len(row) for row in out.buttons) == MAX_BUTTONS  # 99 copies and the archive
    assert all(f"P{i} → Z {i + 1}" in out.text for i in range(150))


@pytest.fixture
async def bot() -> tuple[Bot, FakeBotApi]:
    api = FakeBotApi()
    api.add_chat(GROUP)
    api.set_member(GROUP.id, WANG, "member")
    return Bot("123:TEST", request=EmulatorRequest(api)), api


async def test_send_ephemeral_true_when_taken_false_when_refused(
    bot: tuple[Bot, FakeBotApi],
) -> None:
    ptb, api = bot
    async with ptb:
        assert await send_ephemeral(ptb, GROUP.id, WANG.id, ["a", "b"], None)
        assert [(e.plain_text, e.receiver_user_id) for e in api.outbox] == [
            ("a", WANG.id),
            ("b", WANG.id),
        ]
        assert api.bot_messages(GROUP.id) == []  # nobody else sees them
        assert not await send_ephemeral(ptb, GROUP.id, LI.id, ["a"], None)  # no member
        api.ephemeral_refused.add(WANG.id)
        assert not await send_ephemeral(ptb, GROUP.id, WANG.id, ["a"], None)
        api.ephemeral_refused.clear()
        api.ephemeral_supported = False
        assert not await send_ephemeral(ptb, GROUP.id, WANG.id, ["a"], None)
    assert len(api.outbox) == 2  # nothing was sent to anyone by the refused ones


def keyboard(*buttons: dict[str, object]) -> dict[str, object]:
    return {"inline_keyboard": [list(buttons)]}


@pytest.mark.parametrize(
    ("markup_json", "error"),
    [
        (keyboard({"text": "x", "callback_data": "d", "style": "red"}), "BUTTON_STYLE_INVALID"),
        (keyboard({"text": "x", "disabled": {"a": 1}}), "disabled must be an object"),
        (keyboard({"text": "x", "copy_text": {"text": ""}}), "COPY_TEXT_INVALID"),
        (keyboard({"text": "x", "copy_text": {"text": "y" * 257}}), "COPY_TEXT_INVALID"),
        (keyboard({"text": "x", "callback_data": "d", "disabled": {}}), "exactly one"),
        (
            {"inline_keyboard": [[{"text": "x", "callback_data": "d"}]] * (MAX_BUTTONS + 1)},
            "REPLY_MARKUP_TOO_LONG",
        ),
    ],
)
def test_the_emulator_refuses_malformed_buttons(markup_json: dict[str, object], error: str) -> None:
    api = FakeBotApi()
    api.add_chat(GROUP)
    with pytest.raises(FakeApiError, match=error):
        api.call("sendMessage", {"chat_id": GROUP.id, "text": "x", "reply_markup": markup_json})


@pytest.mark.parametrize(
    ("chat_id", "params", "error"),
    [
        (GROUP.id, {"receiver_user_id": LI.id}, "PARTICIPANT_ID_INVALID"),
        (WANG.id, {"receiver_user_id": WANG.id}, "only to groups"),
        (GROUP.id, {"receiver_user_id": WANG.id, "callback_query_id": "1"}, "QUERY_ID_INVALID"),
        (
            GROUP.id,
            {"receiver_user_id": WANG.id, "replace_callback_query_message": False},
            "needs a callback_query_id",
        ),
        (GROUP.id, {"receiver_user_id": WANG.id, "receiver": 1}, "unknown"),
        (GROUP.id, {"callback_query_id": "1"}, "receiver_user_id required"),
    ],
)
def test_the_emulator_checks_ephemeral_parameters(
    chat_id: int, params: dict[str, object], error: str
) -> None:
    api = FakeBotApi()
    api.add_chat(GROUP)
    api.set_member(GROUP.id, WANG, "member")
    api.send_text(Chat.private(WANG), WANG, "/start")  # the private chat exists
    with pytest.raises(FakeApiError, match=error):
        api.call(
            "sendMessage", {"chat_id": chat_id, "text": "x", "ephemeral_message_parameters": params}
        )


def test_the_emulator_takes_a_press_answered_in_place_by_its_presser_only() -> None:
    api = FakeBotApi()
    api.add_chat(GROUP)
    for user in (WANG, LI):
        api.set_member(GROUP.id, user, "member")
    sent = api.call("sendMessage", {"chat_id": GROUP.id, "text": "standings"})
    query = api.press_button(GROUP, WANG, sent["message_id"], "v1:mine")["callback_query"]["id"]
    by_li = {"receiver_user_id": LI.id, "callback_query_id": query}
    with pytest.raises(FakeApiError, match="QUERY_ID_INVALID"):
        api.call(
            "sendMessage", {"chat_id": GROUP.id, "text": "x", "ephemeral_message_parameters": by_li}
        )
    params = ephemeral_parameters(WANG.id, query)
    api.call(
        "sendMessage", {"chat_id": GROUP.id, "text": "mine", "ephemeral_message_parameters": params}
    )
    assert api.outbox[-1].callback_query_id == query
    with pytest.raises(FakeApiError, match="URL_INVALID"):
        api.call("answerCallbackQuery", {"callback_query_id": query, "url": "https://evil"})


class Unreachable(EmulatorRequest):
    """Telegram out of reach for sendMessage (the other calls answered)."""

    async def answer(self, method: str, params: dict[str, object]) -> tuple[int, dict[str, object]]:
        if method.lower() == "sendmessage":
            raise NetworkError("connection reset")
        return await super().answer(method, params)


async def test_a_network_failure_is_raised_not_taken_for_a_refusal() -> None:
    """Out of reach, the reply is retried as any reply is (`bot.delivery.transient`), not
    answered by the fallback."""
    api = FakeBotApi()
    api.add_chat(GROUP)
    api.set_member(GROUP.id, WANG, "member")
    async with Bot("123:TEST", request=Unreachable(api)) as ptb:
        with pytest.raises(NetworkError):
            await send_ephemeral(ptb, GROUP.id, WANG.id, ["a"], None)
