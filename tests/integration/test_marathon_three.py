"""Issue 37, point 4, through the console: in a marathon of three, who takes a seat plays on
with its totals (a loser cannot walk away from them), /sub's reply says so, and the seat's
final score is shared by the people who sat in it, by the hands each played."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from tests.integration.test_console import console, last_standings

EVENING = """\
小红: /new 510k3 marathon
小红: /seats 小红 老王 阿张
小红: /r 小红=0 老王=100 阿张=0 出 老王 阿张
小红: /r 小红=5 老王=95 阿张=0 出 老王 阿张
小红: [Record both]
小红: /sub 小红 老赵
小红: /r 老赵=0 老王=100 阿张=0 出 老王 阿张
小红: /r 老赵=5 老王=95 阿张=0 出 老王 阿张
小红: [Record both]
小红: /r 老赵=0 老王=100 阿张=0 出 老王 阿张
小红: [Record both]
小红: /standings
小红: /rules
"""


def test_the_seat_keeps_its_progress_and_its_people_share_the_score(tmp_path: Path) -> None:
    out = console(tmp_path / "j.sqlite3", EVENING, "小红")
    # 小红 leaves at -35 card points: 老赵 plays on from there, and /sub says so
    assert "老赵 接替 小红 的座位。\n连打中老赵接着用这个座位的分打" in out
    assert "🏃 连打 3 局后：老赵 -55/500" in out
    # The seat ends at -90, doubled +10% for the winner only: -90 shared 2 : 3 by hands played
    assert "本局积分：老赵 -54 · 老王 +649 · 阿张 0 · 小红 -36" in out
    assert last_standings(out, "510K 得分：") == {
        "老王": Fraction(649),
        "阿张": Fraction(0),
        "小红": Fraction(-36),
        "老赵": Fraction(-54),
    }
    rules = out.rsplit("连打的总分", 1)[1]
    assert "三人" in rules.split("\n\n")[0]
