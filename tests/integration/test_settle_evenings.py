"""The issue's two evenings of money, through the console: a 510K substitute billed only for the
hands he sat at (squared hand by hand, as zerosum would have recorded), and mahjong with poker
settled in one money list, each at its own stake, a game without one left out; the admins'
"settled — archive the season" button; the replies in Chinese and English."""

from __future__ import annotations

import pytest

from tests.integration.test_console import console
from tests.integration.test_replies import reply

K510_EVENING = """\
小红: /new 510k
小红: /seats 小红 老赵 阿明 大刘
小红: /r 小红=0 老赵=50 阿明=0 大刘=50 出 老赵 大刘
小红: /r 小红=25 老赵=35 阿明=20 大刘=0/20 出 老赵 小红 阿明
小红: /seats 小红 小孙 阿明 大刘
小红: /r 小红=30 小孙=20 阿明=40 大刘=10 出 小红 阿明
小红: /r 小红=40 小孙=10 阿明=30 大刘=20 出 阿明 小红
小红: /r 小红=60 小孙=0 阿明=40 大刘=0 出 小红 阿明
小红: /r 小红=30 小孙=20 阿明=40 大刘=10 出 阿明 小红
小红: /standings
阿明: /settle
小红: /set stake 510k 0.5
小红: /settle 钱
阿明: [✅ 已结清，归档第 1 赛季]
小红: [✅ 已结清，归档第 1 赛季]
小红: /standings
"""
MONEY_EVENING = """\
Alice: /new mahjong
Alice: /seats Alice Bob Carol Dave
Alice: /hu Alice zimo qys pph
Alice: /pay Dave Alice 1
Alice: /new free poker
Alice: /seats Alice Bob Carol Dave
Alice: /s Bob+200 Carol+180 Alice
Alice: /new free hearts
Alice: /seats Alice Bob
Alice: /s Alice+5 Bob
Alice: /set stake 0.1
Alice: /settle
Alice: /set stake mahjong 1
Alice: /set stake poker 0.1
Alice: /set stake off
Alice: /settle money
Bob: /settle money
Alice: /set stake 0.5
Alice: /set stake mahjong off
Alice: /set stake hearts 0
Alice: /rules
Alice: /set stake mahjong
"""


@pytest.fixture(scope="module")
def k510(tmp_path_factory: pytest.TempPathFactory) -> str:
    return console(tmp_path_factory.mktemp("k510") / "j.sqlite3", K510_EVENING, "小红")


@pytest.fixture(scope="module")
def money(tmp_path_factory: pytest.TempPathFactory) -> str:
    return console(tmp_path_factory.mktemp("money") / "j.sqlite3", MONEY_EVENING, "Alice")


def test_a_substitute_is_billed_for_the_hands_he_played(k510: str) -> None:
    """小孙 played four hands (-55); each hand is squared against its own average (hands 1–2:
    60 and 15 with 老赵, hands 3–6: 20, 20, 40, 20 with 小孙), so 小孙 pays 25 + 25 + 80 + 25,
    老赵 is paid for his 120 − 60 + 7.5 − 15, and a member who is not an admin gets no
    archive button. The note says how non-zero-sum scores were squared."""
    assert reply(k510, "第 1 赛季积分")[2:] == [
        "1. 小红 +237.5",
        "2. 阿明 +237.5",
        "3. 老赵 +127.5",
        "4. 大刘 +72.5",
        "5. 小孙 -55",
        "[👤 我的账]",  # the presser's own account, for them alone
    ]
    assert reply(k510, "第 1 赛季结账：") == [
        "第 1 赛季结账：",
        "510K 得分：",
        "大刘 → 小红 82.5",
        "小孙 → 老赵 72.5",
        "小孙 → 阿明 82.5",
        "（510K 得分不是零和的：每一局按当局在座几位的平均分来结，和开了零和时记下的一样。）",
        "[📋 大刘 → 小红 82.5 (copies)]",
        "[📋 小孙 → 老赵 72.5 (copies)]",
        "[📋 小孙 → 阿明 82.5 (copies)]",
        "[🖼 本场战报图]",
    ]


def test_the_money_and_the_archive_button(k510: str) -> None:
    assert reply(k510, "第 1 赛季算钱：") == [
        "第 1 赛季算钱：",
        "大刘 → 小红 41.25",
        "小孙 → 老赵 36.25",
        "小孙 → 阿明 41.25",
        "计入：510K 每分 0.5。",
        "[📋 大刘 → 小红 41.25 (copies)]",
        "[📋 小孙 → 老赵 36.25 (copies)]",
        "[📋 小孙 → 阿明 41.25 (copies)]",
        "[✅ 已结清，归档第 1 赛季]",  # 小红 is the admin
    ]
    assert "(alert) 只有群管理员可以这样做。" in k510  # 阿明 pressed it
    assert reply(k510, "第 1 赛季已归档。")[0].startswith("第 1 赛季已归档。第 2 赛季开始")
    assert "还没有记录任何一局。" in k510.rsplit("第 2 赛季积分", 1)[1]


def test_one_stake_for_both_games_was_two_figures(money: str) -> None:
    """The issue's evening: at one stake of 0.1 Alice collects 3.7 and pays 38."""
    assert reply(money, "To square season 1:") == [
        "To square season 1:",
        "Mahjong points:",
        "Bob → Alice 12 · 1.20 in money",
        "Carol → Alice 12 · 1.20 in money",
        "Dave → Alice 13 · 1.30 in money",
        "Free points · hearts:",
        "Bob → Alice 5 · 0.50 in money",
        "Free points · poker:",
        "Alice → Bob 200 · 20 in money",
        "Alice → Carol 180 · 18 in money",
        "Stake: 0.1 per point.",
        "All games in one money list: /settle money",
        "[📋 Bob → Alice 1.20 (copies)]",
        "[📋 Carol → Alice 1.20 (copies)]",
        "[📋 Dave → Alice 1.30 (copies)]",
        "[📋 Bob → Alice 0.50 (copies)]",
        "[📋 Alice → Bob 20 (copies)]",
        "[📋 Alice → Carol 18 (copies)]",
        "[✅ Settled — archive season 1]",
        "[🖼 The night's card]",
    ]


def test_each_game_at_its_stake_in_one_money_list(money: str) -> None:
    """Mahjong at 1 and poker at 0.1: Alice 37 − 38 = −1, Bob −12 + 20, Carol −12 + 18, Dave
    −13; hearts has no stake and is named as left out; Bob (no admin) gets no button."""
    assert reply(money, "Stake for mahjong:") == ["Stake for mahjong: 1 per point."]
    assert reply(money, "No stake for the chat") == [
        "No stake for the chat: only games with a stake of their own count.",
        "Games with a stake of their own: mahjong 1 · poker 0.1.",
    ]
    lines = [
        "Money to square season 1:",
        "Alice → Carol 1",
        "Dave → Bob 8",
        "Dave → Carol 5",
        "Counted: mahjong at 1 per point · poker at 0.1 per point.",
        "Left out, no stake: hearts. Give one with /set stake hearts 0.5.",
        "[📋 Alice → Carol 1 (copies)]",
        "[📋 Dave → Bob 8 (copies)]",
        "[📋 Dave → Carol 5 (copies)]",
    ]
    first, second = money.split("Money to square season 1:")[1:3]
    assert reply("Money to square season 1:" + first, lines[0]) == [
        *lines,
        "[✅ Settled — archive season 1]",
    ]
    assert reply("Money to square season 1:" + second, lines[0]) == lines


def test_how_stakes_combine_is_said(money: str) -> None:
    assert reply(money, "Stake: 0.5 per point") == [
        "Stake: 0.5 per point, for every game without a stake of its own.",
        "Games with a stake of their own: mahjong 1 · poker 0.1.",
    ]
    assert reply(money, "Stake for mahjong: the chat's") == [
        "Stake for mahjong: the chat's, 0.5 per point (none of its own now)."
    ]
    assert reply(money, "Stake for hearts:") == [
        "Stake for hearts: 0, it plays for nothing (/settle money leaves it out)."
    ]
    assert (
        "Options here: 死双 off · zero-sum 510K off · stake 0.5; a game's own: hearts 0 · poker 0.1"
        in money
    )
    assert "⚠️ give mahjong's stake too, e.g. /set stake mahjong 1" in money
