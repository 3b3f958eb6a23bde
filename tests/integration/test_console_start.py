"""The console as a newcomer meets it: the README's examples work as printed, a button is
pressed by its label in either language, the database it opened is named with what it holds,
--fresh starts anew without losing the old ledger, and an admin-only refusal says how to name
admins."""

from __future__ import annotations

import asyncio
import io
import re
import sqlite3
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.console.start import run_console_app, set_aside

ROOT = Path(__file__).resolve().parents[2]
EVENING = "老王: /new mahjong\n老王: /join\n小李: /join\n阿张: /join\nChen: /join\n"


def readme_example() -> list[str]:
    """The console lines of the README's quick start, as printed."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n(老王: /new mahjong\n.*?)```", readme, re.S)
    assert block is not None, "the README's console example is gone"
    return block.group(1).splitlines()


async def play(db: Path, lines: list[str], *admins: str) -> tuple[str, str]:
    """The console's output and its note on the database, for `lines` on the file `db`."""
    out, note = io.StringIO(), io.StringIO()
    await run_console_app(
        f"sqlite:///{db}", admins, files_dir=db.parent, lines=lines, out=out, note=note
    )
    return out.getvalue(), note.getvalue()


async def test_the_readme_example_works_as_printed(tmp_path: Path) -> None:
    lines = readme_example()
    assert lines[-1] == "Chen: [Undo]"
    out, _ = await play(tmp_path / "j.sqlite3", lines)
    assert "(no button" not in out and "⚠️" not in out
    assert "[撤销]" in out  # the hand was answered in Chinese, the English label pressed it
    # the chat's language is its first command's (老王's Chinese): Chen reads Chinese too
    assert "↩️ 已撤销：第 1 局" in out and "Undone" not in out


def readme_evening() -> list[tuple[str, list[str]]]:
    """The README's evening at the table: each line typed, and the pieces of the bot's answer
    it shows (split where the README shortens or joins lines: ` · `, ` … `, wide gaps)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## An evening at the table\n.*?```\n(.*?)```", readme, re.S)
    assert block is not None, "the README's evening is gone"
    said: list[tuple[str, list[str]]] = []
    for line in block.group(1).splitlines():
        if line.startswith("jifen: ") or line.startswith(" "):
            shown = line.removeprefix("jifen: ").strip()
            pieces = re.split(r"\s{2,}| · | … |(?<=[。\]]) ", shown)
            said[-1][1].extend(p for p in pieces if p and p != "…")
        else:
            said.append((line, []))
    return said


async def test_the_readme_evening_is_what_the_console_answers(tmp_path: Path) -> None:
    evening = readme_evening()
    assert len(evening) == 6 and all(shown for _, shown in evening), evening
    for typed, shown in evening:  # one line at a time on the same file: each line's answer
        answer, _ = await play(tmp_path / "evening.sqlite3", [typed])
        missing = [piece for piece in shown if piece not in answer]
        assert not missing, f"{typed!r}: {missing} not in the answer {answer!r}"


async def test_a_chinese_label_presses_an_english_button(tmp_path: Path) -> None:
    english = ["Chen: /new mahjong", "Chen: /join", "老王: /join", "小李: /join", "阿张: /join"]
    lines = [*english, "Chen: /hu Chen zimo", "老王: [撤销]"]  # an English chat: Chen's first
    out, _ = await play(tmp_path / "j.sqlite3", lines)
    assert "[Undo]" in out and "↩️ Undone" in out.split("[Undo]")[-1]  # pressed by 撤销
    assert "(no button" not in out


async def test_the_console_says_which_database_it_opened_and_what_it_holds(
    tmp_path: Path,
) -> None:
    db = tmp_path / "j.sqlite3"
    _, first = await play(db, [*EVENING.splitlines(), "老王: /hu 老王 自摸"])
    assert first == f"jifen console: {db}: a new database\n"
    out, second = await play(db, ["老王: /hu 小李 自摸"])  # another hand (not a repeat)
    assert second == f"jifen console: {db}: 1 chat(s), 1 hand(s); start fresh with --fresh\n"
    assert "第 2 局" in out  # the same ledger, continued


def hands_in(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM event WHERE kind = 'hand'").fetchone()[0])


def test_fresh_moves_the_old_ledger_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "j.sqlite3"
    asyncio.run(play(db, [*EVENING.splitlines(), "老王: /hu 老王 自摸"]))
    monkeypatch.setattr(sys, "stdin", io.StringIO(EVENING + "老王: /hu 老王 自摸\n"))
    monkeypatch.setenv("JIFEN_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("TELEGRAM_BOT_TOKEN", raising=False)
    assert main(["console", "--db", str(db), "--fresh"]) == 0
    captured = capsys.readouterr()
    (aside,) = set(tmp_path.glob("j-*.sqlite3"))
    assert f"the old {db} is kept as {aside}" in captured.err
    assert f"{db}: a new database" in captured.err
    assert "第 1 局" in captured.out  # counted from 1 again
    assert hands_in(aside) == 1 and hands_in(db) == 1


def test_fresh_keeps_the_wal_with_its_database(tmp_path: Path) -> None:
    db = tmp_path / "j.sqlite3"
    for name in ("j.sqlite3", "j.sqlite3-wal"):
        (tmp_path / name).write_text(name)
    aside = set_aside(f"sqlite:///{db}")
    assert aside is not None and not db.exists()
    assert aside.read_text() == "j.sqlite3"
    assert Path(f"{aside}-wal").read_text() == "j.sqlite3-wal"
    assert set_aside(f"sqlite:///{db}") is None  # nothing there: nothing to move
    with pytest.raises(ValueError, match="SQLite"):
        set_aside("postgresql://user@localhost/jifen")


async def test_an_admin_only_refusal_says_how_to_name_admins(tmp_path: Path) -> None:
    out, _ = await play(tmp_path / "a.sqlite3", ["老王: /set lang en"])
    assert "nobody is admin" in out and "jifen console --admins NAME,NAME" in out
    out, _ = await play(tmp_path / "b.sqlite3", ["小李: /set lang en"], "老王")
    assert "the admins are 老王" in out and "--admins NAME,NAME" in out
    out, _ = await play(tmp_path / "c.sqlite3", ["老王: /set lang en"], "老王")
    assert "--admins" not in out


async def test_the_readme_private_answer_is_what_the_console_shows(tmp_path: Path) -> None:
    """The README's /mine, as only 小李 sees it: each line of the box (its time aside)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```\n小李: /mine\n(.*?)```", readme, re.S)
    assert block is not None, "the README's private answer is gone"
    shown = [line.removeprefix("│").strip() for line in block.group(1).splitlines()[1:-1]]
    lines = [
        *EVENING.splitlines(),
        "老王: /set stake 0.5",
        "小李: /hu 老王 自摸 清一色 碰碰胡",
        "小李: /mine",
    ]
    out, _ = await play(tmp_path / "j.sqlite3", lines, "老王")
    private = out.split("(only 小李 sees)\n", 1)[1]
    for line in filter(None, shown):
        pattern = re.escape(line).replace(r"12\-05\ 21:40", r"\d\d-\d\d \d\d:\d\d")
        assert re.search(pattern, private), f"{line!r} not in {private!r}"
