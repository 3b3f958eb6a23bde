"""Issue 42 typed in the console (`jifen console`, one process, as a group would type it): fees
shared by the table, paid by one, split among the players named, undone, in /history, /settle
money and the night's card's caption; /yue arranging a game (its poll shown), listed and called
off; /set idle answered in Chinese."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_console import console
from tests.integration.test_table_state import replies

pytestmark = pytest.mark.slow  # a console process

EVENING = """\
老王: /new mahjong
老王: /seats 老王 小李 阿张 老陈
老王: /hu 老王 自摸
老王: /fee 100 台费
小李: /fee 120 台费 paid 小李
阿张: /fee 10 茶水 小李 阿张 老陈
阿张: /undo
老王: /history
老王: /settle money
老王: /set stake 1
老王: /settle money
老王: /summary
老王: /set tz Asia/Shanghai
老王: /yue 周五 20:00 麻将
老王: /yue
老王: /yue cancel
老王: /set idle 3h
老王: /set idle off
老王: /standings
"""


def test_an_evening_with_fees_and_the_next_game(tmp_path: Path) -> None:
    said = replies(console(tmp_path / "j.sqlite3", EVENING, "老王"))
    out = "\n\n".join(said)
    assert "费用 #2：台费 100" in out and "4 人平摊：每人 25。" in out
    assert "还没人付" in out
    assert "费用 #3：台费 120" in out and "小李 垫付了" in out and "老王 → 小李 30" in out
    assert "分不到整分：小李 多出一分钱。" in out  # 10 among three: 3.34, 3.33, 3.33
    assert "已撤销：费用 #4（茶水）" in out
    assert "#3" in out and "老王 → 🏠 25" in out  # /history lists the fees
    money = [block for block in said if block.startswith("第 1 赛季算钱")]
    assert len(money) == 2
    assert "老王 → 小李 30" in money[0] and "含代付的费用：台费" in money[0]
    # 老王 won 9 at 1 a point and owes 30 of the fee: he pays 21, the others 3 + 30
    assert money[1].splitlines()[1:4] == ["老王 → 小李 21", "老陈 → 小李 33", "阿张 → 小李 33"]
    assert "📅 约好了：麻将，周五" in out and "20:00" in out
    assert "📊 周五" in out and "我来 ✋" in out and "这次不来" in out
    assert "1. 周五" in out and "来 0/4" in out
    assert "❌ 已取消：麻将" in out
    assert "3 小时" in out and "永不（关）" in out
    assert "台费" not in said[-1]  # /standings: points only
