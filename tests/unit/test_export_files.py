"""/export's files: plain CSV while small, gzip-compressed above, compressed parts when even
that is over Telegram's upload limit; every way, the same rows."""

from __future__ import annotations

import csv
import gzip
import io
import tracemalloc
from fractions import Fraction
from pathlib import Path

import pytest

from bot.presentation import export_csv
from service.replies import ExportData, ExportRow


def ledger(rows: int) -> ExportData:
    lines: tuple[ExportRow, ...] = tuple(
        (
            f"2026-01-01 20:{n % 60:02}:00",
            1 + n // 3,
            "mahjong",
            "mahjong",
            f"甲{n % 7}",
            f"Bob{n % 5}",
            str(Fraction(n % 17, 2)),
            "win",
            "老王",
            int(n % 11 == 0),
            "[777p] 123m 456m 789s 55s" if n % 4 == 0 else "",
            n % 3 + 1,
            int(n % 13 == 0),
        )
        for n in range(rows)
    )
    return ExportData(season=3, archived=False, rows=lines, count=rows, hands=1 + rows // 3)


def read(path: Path) -> bytes:
    return gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()


def test_a_small_ledger_is_one_plain_csv(tmp_path: Path) -> None:
    data = ledger(50)
    (only,) = export_csv.export_files(data, "zh", tmp_path)
    assert only.name == "jifen-season-3.csv"
    assert only.read_bytes() == export_csv.export_csv(data, "zh")


def test_a_big_ledger_is_compressed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = ledger(2000)
    whole = export_csv.export_csv(data, "en")
    monkeypatch.setattr(export_csv, "PLAIN_UP_TO", 1000)
    monkeypatch.setattr(export_csv, "BATCH", 7)  # many batches
    monkeypatch.setattr(export_csv, "MEMO", 5)  # cells forgotten and made again
    (only,) = export_csv.export_files(data, "en", tmp_path)
    assert only.name == "jifen-season-3.csv.gz"
    assert read(only) == whole
    assert only.stat().st_size < len(read(only)) / 4


def test_over_the_upload_limit_it_is_split_into_parts_with_headers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(export_csv, "PLAIN_UP_TO", 1000)
    monkeypatch.setattr(export_csv, "UPLOAD_LIMIT", 5000)
    data = ledger(2000)
    whole = export_csv.export_csv(data, "en").splitlines(keepends=True)
    parts = export_csv.export_files(data, "en", tmp_path)
    assert [p.name for p in parts[:2]] == [
        "jifen-season-3-part1.csv.gz",
        "jifen-season-3-part2.csv.gz",
    ]
    texts = [read(p).splitlines(keepends=True) for p in parts]
    assert all(t[0] == whole[0] and len(b"".join(t)) <= 5000 for t in texts)
    assert all(p.stat().st_size <= 5000 for p in parts)
    assert [line for t in texts for line in t[1:]] == whole[1:]


def test_a_field_is_what_csv_writer_writes() -> None:
    for text in ("", "plain", "a,b", 'say "hi"', "two\nlines", "cr\r", " lead", "老王", "'=1"):
        buf = io.StringIO()
        csv.writer(buf).writerow(("x", text, "y"))
        assert buf.getvalue() == f"x,{export_csv._field(text)},y\r\n"


def streamed(rows: int) -> ExportData:
    """A ledger of `rows` rows, made as they are read, every time, name and amount new."""
    lines = (
        (
            f"2026-{1 + n // 1_000_000 % 12:02}-01 {n // 3600 % 24:02}:{n // 60 % 60:02}:"
            f"{n % 60:02}",
            n,
            "free",
            f"free:game{n % 3}",
            f"payer{n}",
            None,
            f"{n}/3",
            "score",
            f"by{n}",
            n % 2,
            f"{n % 9 + 1}11m 222m 333m 444m 55m",
            n % 2 + 1,
            0,
        )
        for n in range(rows)
    )
    return ExportData(
        season=1, archived=False, rows=lines, count=rows, hands=rows, tz="Asia/Shanghai"
    )


def test_memory_does_not_grow_with_the_ledger(tmp_path: Path) -> None:
    def peak(rows: int) -> int:
        tracemalloc.start()
        try:
            (only,) = export_csv.export_files(streamed(rows), "en", tmp_path)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            only.unlink()

    small, big = peak(10_000), peak(40_000)  # each past MEMO distinct values: memos full
    assert big < small + 2**20, (small, big)
