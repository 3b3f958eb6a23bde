"""Issue 26's evenings as typed in the console (`jifen console`, one process): friends seated
by name claim themselves, a substitute keeps the deal, a marathon team keeps its points, a typo
is asked about, and every command gets an answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.test_console import console, last_standings
from tests.integration.test_table_state import replies

pytestmark = pytest.mark.slow

EVENING = """\
老王: /new mahjong
老王: /seats 老王 小李 阿张 老陈
小李: /hu 我 自摸
小李: /join 小李
小李: /iam 小李
小李: /hu 我 自摸
阿张: [我是阿张]
老陈: [我是阿张]
阿张: /hu 阿张 自摸
老王: /seats 老王 小李 阿张 小周
老王: /sub 小周 老陈
阿张: /leave
老王: /hu 老王 自摸
老王: /sub 3 阿张
老王: /rename 老陈 陈哥
老王: /weather
老王: /standings
"""


def test_the_people_evening(tmp_path: Path) -> None:
    said = replies(console(tmp_path / "j.sqlite3", EVENING, "老王"))
    assert "“我”" in said[2] and "/iam 小李" in said[2] and "me" not in said[2]
    assert "/iam 小李" in said[3]
    assert "新玩家：小李, 阿张, 老陈" in said[1]
    assert "[我是小李]" in said[1]
    out = "\n\n".join(said)
    assert "你现在就是这里的 小李" in out and "你现在就是这里的 阿张" in out  # issue 37, point 9
    assert "小李 现在就是 小李" not in out
    assert "1. 老王\n2. 小李\n3. 阿张 🀄庄家\n4. 小周" in out  # the dealer stays 阿张
    assert "老陈 接替 小周 的座位" in out
    assert "阿张 离座" in out and "3 号位空着" in out
    assert "陈哥" in said[-1] and "老陈" not in said[-1]
    assert "没有 /weather 这个命令" in out
    # Two hands: the one typed while seat 3 was free was refused.
    assert said[-1].endswith(
        "麻将积分：\n1. 小李 +6\n2. 阿张 +6\n3. 老王 -6\n4. 陈哥 -6\n[👤 我的账]"
    )


MARATHON = """\
阿明: /new 510k marathon
阿明: /seats 阿明 小红 大刘 老赵
阿明: /r 阿明=40 小红=20 大刘=30 老赵=10 出 阿明 大刘
阿明: /sub 老赵 小孙
阿明: /r 阿明=60 小红=0 大刘=40 小孙=0 出 阿明 大刘
"""


def test_a_marathon_team_keeps_its_points_in_the_console(tmp_path: Path) -> None:
    out = console(tmp_path / "j.sqlite3", MARATHON, "阿明")
    assert "小红+老赵 -10/500" in out
    assert "小红+小孙 -50/500" in out and "小孙 接替 老赵 继续打" in out


TYPO = """\
Erin: /new mahjong
Erin: /seats Erin Bob Carol Dave
Erin: /hu Dave zimo
Erin: /seats Erin Bob Carol Daev
Erin: [Dave]
Erin: /seats Erin Bob Carol Daev
Erin: [New player Daev]
Erin: /hu Daev zimo
Erin: /merge Daev Dave
Erin: /standings
"""


def test_a_typo_is_asked_about_and_merged_in_the_console(tmp_path: Path) -> None:
    out = console(tmp_path / "j.sqlite3", TYPO, "Erin")
    assert "“Daev” looks like a typo of Dave" in out
    assert "New player(s): Daev" in out
    assert last_standings(out) == {"Dave": 18, "Erin": -6, "Bob": -6, "Carol": -6}
