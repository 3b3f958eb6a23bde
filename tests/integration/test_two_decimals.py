"""Issue 37, point 3, through the console: a four-player marathon whose team score is shared
by hands played (5/16 of a team's 615 × 1.1) has figures like 211.40625; every reply shows
at most two decimals, rounded half away from zero, and /settle says that it rounded. The
exact values stay inside: the standings still add up, and money is squared from them."""

from __future__ import annotations

from pathlib import Path

from tests.integration.test_console import console
from tests.integration.test_replies import reply

EVENING = """\
小红: /new 510k marathon
小红: /seats 小红 大刘 小孙 老赵
小红: /r 小红=50 大刘=0 小孙=50 老赵=0 出 小红 小孙
小红: /r 小红=0 大刘=50 小孙=0 老赵=50 出 大刘 老赵
小红: /r 小红=45 大刘=5 小孙=50 老赵=0 出 小红 小孙
小红: /sub 小孙 阿明
小红: /r 小红=5 大刘=45 阿明=0 老赵=50 出 大刘 老赵
小红: /r 小红=50 大刘=0 阿明=45 老赵=5 出 小红 阿明
小红: /r 小红=40 大刘=10 阿明=50 老赵=0 出 小红 阿明
小红: [Record both]
小红: /r 小红=50 大刘=10 阿明=40 老赵=0 出 小红 阿明
小红: [Record both]
小红: /r 小红=50 大刘=0 阿明=50 老赵=0 出 阿明 小红
小红: /standings
小红: /settle
小红: /set stake 0.5
小红: /settle money
"""


def test_points_show_two_decimals_and_say_so(tmp_path: Path) -> None:
    out = console(tmp_path / "j.sqlite3", EVENING, "小红")
    assert "211.40625" not in out and "126.84375" not in out
    # 阿明 played 5 of the team's 16 hands, 小孙 3: 676.5 × 5/16 = 211.40625 → 211.41
    assert "本局积分：小红 +338.25 · 大刘 +12.5 · 阿明 +211.41 · 老赵 +12.5 · 小孙 +126.84" in out
    assert reply(out, "第 1 赛季积分")[2:] == [
        "1. 小红 +338.25",
        "2. 阿明 +211.41",
        "3. 小孙 +126.84",
        "4. 大刘 +12.5",
        "5. 老赵 +12.5",
        "[👤 我的账]",
    ]
    settle = reply(out, "第 1 赛季结账：")
    assert settle[2:5] == ["大刘 → 小孙 61.08", "大刘 → 阿明 101.8", "老赵 → 小红 162.88"]
    assert "（分数最多显示两位小数；精确的数值照样保留。）" in settle
    assert reply(out, "第 1 赛季算钱：")[1:4] == [
        "大刘 → 小孙 30.54",
        "大刘 → 阿明 50.90",
        "老赵 → 小红 81.44",
    ]
