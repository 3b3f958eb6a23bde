"""A free-scoring evening as a player reads it in the console, in Chinese and in English."""

from __future__ import annotations

import pytest

from tests.integration.test_console import console
from tests.integration.test_replies import reply

pytestmark = pytest.mark.slow  # the console as a process

ZH = """\
老王: /new 自由 斗地主
老王: /seats 老王 小李 阿张
老王: /s 老王+30 小李-10 阿张
小李: /s 老王 −5 小李 +5
阿张: /pay 阿张 老王 2.50
老王: /s 老王+30 小李-10
老王: /standings
老王: /settle
"""

EN = """\
Wang: /new free poker
Wang: /seats Wang Li
Wang: /s Wang+1.25 Li
Wang: /pay Li Wang 3
Wang: /undo
Wang: /standings
"""


@pytest.fixture(scope="module")
def zh(tmp_path_factory: pytest.TempPathFactory) -> str:
    return console(tmp_path_factory.mktemp("zh") / "j.sqlite3", ZH, "老王")


@pytest.fixture(scope="module")
def en(tmp_path_factory: pytest.TempPathFactory) -> str:
    return console(tmp_path_factory.mktemp("en") / "j.sqlite3", EN, "Wang")


def test_a_round_in_chinese(zh: str) -> None:
    assert reply(zh, "🎲 斗地主 第 1 轮") == [
        "🎲 斗地主 第 1 轮 — /s 老王+30 小李-10 阿张",
        "本轮得分：老王 +30 · 小李 -10 · 阿张 -20",
        "现在总分：老王 +30 · 小李 -10 · 阿张 -20",
        "[撤销]",
    ]
    assert reply(zh, "💸 第 3 笔转账") == [
        "💸 第 3 笔转账 — /pay 阿张 老王 2.50",
        "  阿张 → 老王 2.5 · 自由记分 · 斗地主",
        "现在总分：老王 +27.5 · 小李 -5 · 阿张 -22.5",
        "[撤销]",
    ]
    assert reply(zh, "⚠️ 没法记下")[0] == "⚠️ 没法记下：各人的分加起来必须是 0"
    assert reply(zh, "第 1 赛季积分")[1:] == [
        "自由记分 · 斗地主：",
        "1. 老王 +27.5",
        "2. 小李 -5",
        "3. 阿张 -22.5",
        "[👤 我的账]",  # answered to whoever presses it alone
    ]
    assert reply(zh, "第 1 赛季结账")[1:] == [
        "自由记分 · 斗地主：",
        "小李 → 老王 5",
        "阿张 → 老王 22.5",
        "[📋 小李 → 老王 5 (copies)]",  # a payment one tap from a banking app
        "[📋 阿张 → 老王 22.5 (copies)]",
        "[✅ 已结清，归档第 1 赛季]",  # 老王 is the console's admin
        "[🖼 本场战报图]",
    ]


def test_a_transfer_undone_in_english(en: str) -> None:
    assert reply(en, "🎲 poker, round #1")[1:3] == [
        "Scores this round: Wang +1.25 · Li -1.25",
        "Totals now: Wang +1.25 · Li -1.25",
    ]
    assert reply(en, "↩️ Undone: transfer #2") == [
        "↩️ Undone: transfer #2 — /pay Li Wang 3",
        "Balances change by: Wang -3 · Li +3",
    ]
    assert reply(en, "Standings of season 1")[1:] == [
        "Free points · poker:",
        "1. Wang +1.25",
        "2. Li -1.25",
        "[👤 My account]",
    ]
