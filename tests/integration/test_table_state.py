"""Issue 12: the table around the scoring follows people through an evening — seat changes with
unpaid kongs, 连打 totals, /new over a seated table, undos from two members, hand numbers. Played
through the console (one process, typed lines) and, for replies and buttons, the real PTB
Application with updates shaped as Telegram sends them."""

from __future__ import annotations

import re
from pathlib import Path

from tests.integration.test_console import console, last_standings

RANKED = re.compile(r"^\d+\. (?P<name>\S+) (?P<amount>[+-]?\d+)$")


def replies(output: str) -> list[str]:
    """The console's replies, one string each."""
    return [block.strip() for block in output.split("\n\n") if block.strip()]


def last_ranking(output: str) -> dict[str, int]:
    """The names and amounts of the last reply's ranked lines (either language)."""
    found = (RANKED.match(line) for line in replies(output)[-1].splitlines())
    return {m["name"]: int(m["amount"]) for m in found if m}


def test_a_seat_change_keeps_the_people_of_an_unpaid_kong(tmp_path: Path) -> None:
    out = console(
        tmp_path / "j.sqlite3",
        "\n".join(
            (
                "老王: /new mahjong",
                "老王: /seats 老王 小李 阿张 小美",
                "老王: /gang 小美 an",
                "老王: /gang 阿张 ming 小美",
                "老王: /seats 老王 小李 阿张 新人",  # 小美 would leave with her kongs
                "老王: /seats 小美 小李 阿张 老王",  # the same four, reordered: fine
                "老王: /hu 老王 zimo",
                "老王: /seats 老王 小李 阿张 新人",  # the kongs are paid: 小美 may go
                "老王: /hu 新人 zimo",
                "老王: /standings",
            )
        ),
        "老王",
    )
    said = replies(out)
    refusal = next(r for r in said if r.startswith("⚠️"))
    assert "小美" in refusal and "/hu" in refusal and "/undo" in refusal
    assert not any("出错" in r or "went wrong" in r for r in said)
    # 老王 self-draws 3 from each; 小美's concealed kong 1 from each, 阿张's exposed one from 小美
    assert "小美 → 阿张 1" in out and "老王 → 小美 1" in out
    assert last_ranking(out) == {
        "老王": 8 - 3,
        "新人": 9,
        "小李": -4 - 3,
        "阿张": -3 - 3,
        "小美": -1,
    }


def test_marathon_totals_follow_people_and_a_newcomer_takes_the_seats(tmp_path: Path) -> None:
    out = console(
        tmp_path / "j.sqlite3",
        "\n".join(
            (
                "A: /new 510k3 marathon",
                "A: /seats A B C",
                "A: /r A=100 B=0 C=0 out A B",  # A 120, B 0, C -20
                "A: /r A=0 B=40 C=0 out B A",  # B 60, A 0, C -20
                "A: /seats B A C",
                "A: /r A=0 B=0 C=20 out C A",  # C 40, A 0, B -20
                "A: /seats B A D",
                "A: /r A=0 B=0 D=20 out D A",
            )
        ),
        "A",
    )
    lines = [line for line in out.splitlines() if line.startswith("🏃")]
    assert lines[2].startswith("🏃 Marathon after 3 hand(s): B 40/500") and "A 120/500" in lines[2]
    assert "C 0/500" in lines[2]
    assert "D 40/500" in lines[3]  # C's seat had 0 (issue 37: the seat keeps its progress)
    assert "(D plays on in C's seat: the seat keeps its points.)" in lines[3]
    assert "A 120/500" in lines[3] and "B 20/500" in lines[3]


def test_new_asks_before_it_drops_kongs_and_keeps_the_players(tmp_path: Path) -> None:
    out = console(
        tmp_path / "j.sqlite3",
        "\n".join(
            (
                "Wang: /new mahjong",
                "Wang: /seats Wang Li Zhang Chen",
                "Wang: /hu Li zimo",  # Li deals next
                "Wang: /new mahjong",  # nothing lost: the four and the dealer stay
                "Li: /gang Li an",
                "Li: /new 510k3",
                "Li: /hu Li zimo",  # the table is still there, kong and all
                "Li: /gang Li an",
                "Li: /new 510k3",
                "Li: [Confirm]",
                "Li: /r Wang=50 Li=30 Zhang=20 out Wang Li",
            )
        ),
    )
    said = replies(out)
    kept = next(r for r in said if r.startswith("New table: mahjong") and "Wang" in r)
    assert "2. Li 🀄dealer" in kept
    ask = next(r for r in said if r.startswith("Replace the open table"))
    assert "1 kong(s) of the hand being played are dropped unpaid." in ask
    assert "Wang, Li, Zhang keep their seats; no seat for Chen." in ask
    assert "[Confirm] [Cancel]" in ask
    hu = next(r for r in said if r.startswith("🀄 Hand #1") and "Li +12" in r)
    assert "Wang → Li 1 · 暗杠 concealed kong" in hu  # the kong was still there after the question
    opened = next(r for r in said if r.startswith("New table: 510K, three players"))
    assert "No seat at this table for: Chen." in opened
    assert "🃏 510K hand #1 —" in out  # numbered per table


def test_two_members_undoing_the_same_mistake_undo_one_hand(tmp_path: Path) -> None:
    out = console(
        tmp_path / "j.sqlite3",
        "\n".join(
            (
                "Wang: /new mahjong",
                "Wang: /seats Wang Li Zhang Chen",
                "Wang: /hu Wang zimo",
                "Wang: /hu Li zimo",
                "Wang: /hu Zhang pao Chen",
                "Li: /undo",
                "Zhang: /undo",  # asks: Li has just undone one
                "Wang: /undo 1",  # an older hand alone; the dealer stays
                "Wang: /undo 3",
                "Wang: /undo 9",
                "Wang: /standings",
            )
        ),
    )
    said = replies(out)
    assert said[5].startswith("↩️ Undone: hand #3")
    assert said[6].startswith("Li has just undone a record. Undo one more, hand #2")
    assert said[6].endswith("[Undo] [Cancel]")
    assert said[7].startswith("↩️ Undone: hand #1") and "Dealer" not in said[7]
    assert said[8] == "⚠️ That record was already undone."
    assert said[9].startswith("⚠️ This season has no hand #9")
    assert last_standings(out) == {"Li": 9, "Wang": -3, "Zhang": -3, "Chen": -3}


def test_hands_are_numbered_per_table_and_season(tmp_path: Path) -> None:
    out = console(
        tmp_path / "j.sqlite3",
        "\n".join(
            (
                "Wang: /new mahjong",
                "Wang: /seats Wang Li Zhang Chen",
                "Wang: /hu Wang zimo",
                "Wang: /hu Li zimo",
                "Wang: /new 510k",
                "Wang: /r Wang=50 Li=30 Zhang=20 Chen=0 out Wang Li Zhang",
                "Wang: /reset confirm",
                "Wang: /r Wang=50 Li=30 Zhang=20 Chen=0 out Wang Li Zhang",
            )
        ),
        "Wang",
    )
    heads = [line.split(" — ")[0] for line in out.splitlines() if " — /" in line]
    assert heads == ["🀄 Hand #1", "🀄 Hand #2", "🃏 510K hand #1", "🃏 510K hand #1"]
