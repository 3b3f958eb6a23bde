"""The contract's tile examples typed into the offline console process, with piped input."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from tests.integration.test_console import console, last_standings

pytestmark = pytest.mark.slow

EVENING = """\
老王: /new mahjong
老王: /join
小李: /join
阿张: /join
Chen: /join
老王: /hu 老王 zimo 11122233344455m
小李: /hu 老王 pao 小李 [777p] 123m456m789s55s
Chen: /hu 阿张 zimo 11335577m99p1144s
Chen: /hu 阿张 zimo 11335577m99p114s
老王: /history 3
老王: /standings
"""


def test_the_contracts_tile_examples_through_the_console(tmp_path: Path) -> None:
    out = console(tmp_path / "jifen.sqlite3", EVENING)
    assert "🀄 手牌：111m 222m 333m 444m 55m —— 4 种读法中得分最高的" in out  # = zimo qys mq pph
    assert "• 老王 胡：自摸 · 碰碰胡 · 清一色 · 门清 · 基数 4 × 4 倍 = 16" in out
    assert "🀄 手牌：[777p] 123m 456m 789s 55s" in out and "小李 → 老王 2 · 小胡点炮" in out
    assert "七小对" in out and "🀄 阿张: 11m 33m 55m 77m 99p 11s 44s" in out  # = zimo qidui
    assert "13 tiles given, 14 needed" in out or "写了 13 张牌，应是 14 张" in out
    chinese = out.replace("第 1 赛季积分", "Standings of season 1").replace("麻将积分：", "M:")
    assert last_standings(chinese, "M:") == {
        "老王": Fraction(42),
        "阿张": Fraction(8),
        "Chen": Fraction(-24),
        "小李": Fraction(-26),
    }
