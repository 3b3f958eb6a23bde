"""Whole evenings through the offline console process: the numbers, restarts, buttons."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
ZH_SECTIONS = {"Mahjong points:": "麻将积分：", "510K scores:": "510K 得分："}
LINE = re.compile(r"^\d+\. (?P<name>.+) (?P<amount>[+-]?\d+(?:\.\d+)?)$")


def console(db: Path, script: str, *admins: str) -> str:
    """Play `script` through `jifen console` in a fresh process; its standard output."""
    args = [sys.executable, "-m", "bot.cli", "console", "--db", str(db)]
    if admins:
        args += ["--admins", ",".join(admins)]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JIFEN_DATA_DIR": str(db.parent)}
    env.pop("TELEGRAM_BOT_TOKEN", None)
    done = subprocess.run(
        args, input=script, capture_output=True, text=True, env=env, timeout=120, cwd=db.parent
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def last_standings(output: str, section: str = "Mahjong points:") -> dict[str, Fraction]:
    """The balances of `section` in the last standings the output shows (a chat whose first
    command was Chinese speaks Chinese: its standings are read alike)."""
    marker = "Standings of season"
    if marker not in output:
        marker, section = "赛季积分", ZH_SECTIONS.get(section, section)
    block = output.rsplit(marker, 1)[1]
    rows: dict[str, Fraction] = {}
    inside = False
    for line in block.splitlines()[1:]:  # after the heading's line
        if line.endswith((":", "：")):
            inside = line == section
            continue
        match = LINE.match(line)
        if inside and match:
            rows[match["name"]] = Fraction(match["amount"])
        elif not line.strip():
            break
    return rows


MAHJONG_EVENING = """\
# seats, then a few hands (dealer 老王)
老王: /new mahjong
老王: /join
小李: /join
阿张: /join
Chen: /join
老王: /hu 老王 自摸 清一色 碰碰胡
小李: /gang 小李 an
阿张: /hu 阿张 pao Chen
Chen: /gang Chen ming 老王
Chen: /hu Chen gangkai
小李: /hu 2 pao 3 qidui1; 4 pao 3 pph
老王: /liuju
Chen: /standings
"""
# 老王 zimo u=12: +36, others -12 · 小李 an kong +3, others -1; 阿张 pao from Chen: 2
# Chen ming kong from 老王, 杠上花 exposed chain 1, jihu: 老王 pays 2·9+1 = 19
# 小李 qidui1 on 阿张's discard: k=4, b=4, u=16 → 24; Chen pph on 阿张: 9
EXPECTED = {
    "老王": 36 - 1 - 19,
    "小李": -12 + 3 + 24,
    "阿张": -12 - 1 + 2 - 24 - 9,
    "Chen": -12 - 1 - 2 + 19 + 9,
}


def test_mahjong_evening(tmp_path: Path) -> None:
    out = console(tmp_path / "j.sqlite3", MAHJONG_EVENING)
    assert last_standings(out) == EXPECTED
    assert sum(EXPECTED.values()) == 0


def test_restart_keeps_balances_and_state(tmp_path: Path) -> None:
    db = tmp_path / "j.sqlite3"
    console(db, MAHJONG_EVENING.replace("老王: /liuju\n", "小李: /gang 小李 bu 阿张\n"))
    # The pending kong survived the restart and settles with the next hand.
    out = console(db, "老王: /liuju\nChen: /standings\n")
    expected = dict(EXPECTED)
    expected["小李"] += 1
    expected["阿张"] -= 1
    assert last_standings(out) == expected


def test_undo_button_and_typed_undo(tmp_path: Path) -> None:
    db = tmp_path / "j.sqlite3"
    out = console(
        db,
        "A: /new mahjong\nA: /seats A B C D\nB: /hu B zimo\nC: /hu C zimo\nD: [Undo]\n"
        "D: /undo\nD: /standings\n",
    )
    assert "Undone" in out
    assert last_standings(out) == {"A": 0, "B": 0, "C": 0, "D": 0}


def test_510k_marathon_evening(tmp_path: Path) -> None:
    # the same result four times: each repeat is asked about and confirmed (Record again)
    hands = (
        "A: /r A=60 B=0 C=40 D=0 out A C\n"
        + "A: /r A=60 B=0 C=40 D=0 out A C\nB: [Record again]\n" * 3
    )
    out = console(
        tmp_path / "k.sqlite3",
        f"A: /new 510k marathon\nA: /seats A B C D\n{hands}A: /standings\n",
    )
    # Each hand: A+C card points 120; after 4 hands 480 < 500: progress only.
    assert "Marathon after 4 hand(s)" in out
    again = "A: /r A=60 B=0 C=40 D=0 out A C\nC: [Record again]\n"  # within two minutes
    out = console(tmp_path / "k.sqlite3", again + "A: /standings\n")
    # 600 vs -200, B+D took no table points and never went out first: doubled;
    # winners' 1200 split 600 each, plus 10%: 660; losers -400 → -200 each.
    assert last_standings(out, "510K scores:") == {"A": 660, "C": 660, "B": -200, "D": -200}


def test_reset_needs_an_admin_and_a_confirmation(tmp_path: Path) -> None:
    script = (
        "A: /new mahjong\nA: /seats A B C D\nB: /hu B zimo\nB: /reset\nA: /reset\n"
        "A: [Confirm]\nA: /standings\nA: /standings 1\n"
    )
    out = console(tmp_path / "j.sqlite3", script, "A")
    assert "Only group admins can do that." in out
    assert "Season 1 archived." in out
    assert last_standings(out) == {"B": 9, "A": -3, "C": -3, "D": -3}
    assert "Standings of season 2:\nNo hands recorded yet." in out


@pytest.mark.parametrize(
    "bad", ["/hu", "/hu Nobody zimo", "/r A=3", "/gang A ming A", "/standigns"]
)
def test_bad_input_is_answered_and_changes_nothing(tmp_path: Path, bad: str) -> None:
    out = console(
        tmp_path / "j.sqlite3",
        f"A: /new mahjong\nA: /seats A B C D\nA: /hu A zimo\nB: {bad}\nA: /standings\n",
    )
    assert last_standings(out) == {"A": 9, "B": -3, "C": -3, "D": -3}
    assert "⚠️" in out or "Who won?" in out


def test_private_answers_show_whom_they_are_for(tmp_path: Path) -> None:
    """/mine and the [我的账] button answer one member alone: the console says whom; a used
    Undo stays, disabled, saying so."""
    out = console(
        tmp_path / "j.sqlite3",
        "老王: /new mahjong\n老王: /join\n小李: /join\n阿张: /join\n老陈: /join\n"
        "小李: /hu 老王 zimo\n小李: /hu 小李 zimo\n阿张: [撤销]\n"
        "小李: /mine\n阿张: /standings\n老陈: [👤 我的账]\n阿张: [↩️ 已撤销]\n"
        "老王: /settle\n老陈: [📋 老陈 → 老王 3]\n",
    )
    assert "[↩️ 已撤销 (disabled)]" in out, out
    assert "(the button [↩️ 已撤销] is disabled: it does nothing)" in out
    assert "[📋 老陈 → 老王 3 (copies)]" in out and "(copied: 老陈 → 老王 3)" in out
    mine = out.split("(only 小李 sees)\n", 1)[1]
    assert mine.startswith("👤 我的账 · 小李，第 1 赛季\n余额：🀄 麻将 -3"), mine
    pressed = out.split("(only 老陈 sees)\n", 1)[1]
    assert pressed.startswith("👤 我的账 · 老陈，第 1 赛季"), pressed
