"""Issue 38 through the offline console process: each kind of record corrected in place with
/edit (a mahjong hand with its kongs, a drawn hand, a kong, a 510K report, a free round, a
transfer), the balances following the current versions, and a correction undone by its
button."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from tests.integration.test_console import console, last_standings

pytestmark = pytest.mark.slow

MAHJONG = """\
Ann: /new mahjong
Ann: /seats Ann Bob Cat Dan
Ann: /gang Bob an
Ann: /hu Cat pao Dan
Ann: /liuju
Bob: /edit 1 /hu Cat pao Dan qys
Cat: /edit 2 Ann zimo
Dan: /gang Cat an
Dan: /edit /gang Dan an
Ann: /history 1
Ann: /standings
"""


def test_mahjong_hands_a_draw_and_kongs(tmp_path: Path) -> None:
    out = console(tmp_path / "edit.sqlite3", MAHJONG)
    assert "#1 corrected" in out and "by Bob" in out and "added qys" in out
    assert "#2 corrected" in out and "by Cat" in out
    assert "Which record?" in out  # a bare /edit outside a reply names no record
    assert "#1 ✎ every version" in out
    assert "Next dealer: Cat" in out  # #2, the last hand, corrected: Bob dealt, Ann won
    # #1: Bob's kong (1 from each) and Cat's qys on Dan's discard (9); #2: Ann's self-draw
    assert last_standings(out) == {
        "Ann": Fraction(-1 + 9),
        "Bob": Fraction(3 - 3),
        "Cat": Fraction(-1 + 9 - 3),
        "Dan": Fraction(-1 - 9 - 3),
    }


OTHERS = """\
Ann: /new 510k
Ann: /seats Ann Bob Cat Dan
Ann: /r Ann=30 Bob=20 Cat=40 Dan=10 out Ann Cat
Bob: /edit 1 /r Ann=10 Bob=40 Cat=40 Dan=10 out Ann Cat
Ann: /pay Bob Dan 5
Cat: /edit 2 /pay Bob Dan 7
Dan: [Undo]
Ann: /new free poker confirm
Ann: /seats Ann Bob Cat
Ann: /s Ann+30 Bob-10 Cat
Bob: /edit 1 Ann+20 Bob-10 Cat
Ann: /standings
"""


def test_a_510k_report_a_transfer_and_a_free_round(tmp_path: Path) -> None:
    out = console(tmp_path / "edit.sqlite3", OTHERS)
    assert out.count("corrected") >= 3 and "#2 back as before" in out
    assert last_standings(out, "Free points · poker:") == {
        "Ann": Fraction(20),
        "Bob": Fraction(-10),
        "Cat": Fraction(-10),
    }
