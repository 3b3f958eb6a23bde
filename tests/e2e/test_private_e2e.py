"""A night with private answers and buttons that speak, end to end (the bot as a process, the
Bot API emulator over HTTP, updates shaped as Telegram sends them): mid-game a player asks
/mine (我的) and sees their balance, last hands and what they would pay, alone; another presses
[👤 我的账] under /standings and sees theirs in place; an Undo is red and, used, stays as a
disabled button saying so; a player whose app cannot show it gets the private chat's button,
never the numbers in public; at the end /settle money has a copy button per payment."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Bots, button_data, buttons, user

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(240)]

WANG, LI, ZHANG, CHEN = (
    user("老王", 4001, "zh"),
    user("小李", 4002, "zh"),
    user("阿张", 4003, "zh"),
    user("老陈", 4004, "zh"),
)


def test_a_night_with_private_answers_and_copy_buttons(bots: Bots) -> None:
    bots.start()
    night = bots.group("周五麻将")
    night.text(WANG, "/new mahjong")
    for player in (WANG, LI, ZHANG, CHEN):
        night.text(player, "/join")
    night.client.set_member(night.chat, WANG, "creator")
    night.text(WANG, "/set stake 1")
    night.text(LI, "/hu 老王 zimo qys pph")  # 老王 +36, each of the others -12

    # An Undo is red; used, it stays as a disabled button saying so.
    record = night.say(LI, "/hu 小李 pao 老陈")
    undo = button_data(record, "v1:undo:")
    [red] = [b for b in buttons(record) if b.get("callback_data") == undo]
    assert red["style"] == "danger", red
    night.press_ok(LI, record, undo)
    [spent] = buttons(night.message_state(record["message_id"]))
    assert spent == {"text": "↩️ 已撤销", "disabled": {}}, spent

    # Mid-game, 老陈 asks what he owes: for his eyes only.
    mine = night.say(CHEN, "/mine")
    assert mine["receiver_user_id"] == CHEN["id"], mine
    text = mine["plain_text"]
    assert "我的账 · 老陈，第 1 赛季" in text and "余额：🀄 麻将 -12" in text, text
    assert "我付给 老王 12" in text and "只有你能看到" in text, text
    public = [e for e in night.entries(0) if e.get("receiver_user_id") is None]
    assert not any("我付给" in e["plain_text"] for e in public)

    # 小李 presses [我的账] under /standings: his own account, in place, for him alone.
    standings = night.say(ZHANG, "/standings")
    mine_button = button_data(standings, "v1:mine")
    since = night.press(LI, standings["message_id"], mine_button)
    [shown] = [
        e
        for e in night.wait_entries(since, lambda es: any(e["action"] == "sent" for e in es))
        if e["action"] == "sent"
    ]
    assert shown["receiver_user_id"] == LI["id"] and shown["callback_query_id"], shown
    assert "小李" in shown["plain_text"] and "我付给 老王 12" in shown["plain_text"], shown
    answer = night.wait_answer(since)
    assert not answer["show_alert"] and answer["url"] is None, answer
    assert buttons(night.message_state(standings["message_id"]))  # the standings stay

    # 阿张's app cannot show it: a button into the private chat, the numbers never in public.
    night.client.ephemeral(refused=(ZHANG["id"],))
    fallback = night.say(ZHANG, "/mine")
    assert fallback.get("receiver_user_id") is None and "私聊" in fallback["plain_text"]
    assert "我付给" not in fallback["plain_text"] and "-12" not in fallback["plain_text"]
    [open_private] = buttons(fallback)
    assert open_private["url"].endswith("?start=mine"), open_private
    night.client.ephemeral()

    # At the end: a copy button per payment, its text the payment itself.
    money = night.say(WANG, "/settle money")
    copies = [b["copy_text"]["text"] for b in buttons(money) if "copy_text" in b]
    assert sorted(copies) == ["小李 → 老王 12", "老陈 → 老王 12", "阿张 → 老王 12"], copies
    for line in copies:
        assert line in money["plain_text"]
