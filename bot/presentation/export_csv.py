"""/export's file: a season's ledger as CSV, its header in the chat's language, its times in
the chat's time zone (/set tz), which the time column's header names.

Names and exact amounts stay as stored; the words (games, reasons, the table, yes/no) are in the
chat's language (English: the stored words, as before). The rows
stream from the database into a file a batch at a time: each distinct time, name and amount is
formatted once (`_Memo`), as `csv.writer` writes it, and a batch's lines are joined in one
comprehension. Telegram takes a bot's upload up to 50 MB, and the upload is held in
memory: a CSV up to `PLAIN_UP_TO` is sent as it is (it opens in any spreadsheet); a bigger one
gzip-compressed (`.csv.gz`, ~10× smaller); if even that is over `UPLOAD_LIMIT`, in
gzip-compressed parts, each a CSV with its header.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
import shutil
from collections.abc import Callable, Hashable, Iterable
from datetime import UTC, datetime
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction
from itertools import islice
from pathlib import Path
from typing import IO, TypeVar
from zoneinfo import ZoneInfo

from bot.i18n import N_, translator
from scoring.games import fee_name, free_name
from service.replies import ExportData, ExportRow

K = TypeVar("K", bound=Hashable)

HEADER = (
    N_("time ({zone})"),  # the chat's time zone
    N_("table"),  # the season's tables numbered 1, 2, … in the order they first recorded
    N_("hand"),
    N_("game"),
    N_("payer"),
    N_("payee"),
    N_("amount"),
    N_("reason"),
    N_("recorded by"),
    N_("undone"),
    N_("tiles"),  # the winner's hand, where the /hu gave it as tiles
    N_("edited"),  # corrected in place (/edit): the row is its current version
)
TABLE = "(table)"  # the CSV's name for the table, the other side of a 510K score
YES_NO = ("yes", "no")  # undone or not
#: The file's words in other languages than English (which writes them as stored): a word's
#: message, the word with its column (the same word means one thing in a file).
WORDS = {
    "mahjong": N_("CSV game: mahjong"),
    "510k": N_("CSV game: 510k"),
    "510k3": N_("CSV game: 510k3"),
    "free": N_("CSV game: free"),
    "win": N_("CSV reason: win"),
    "kong": N_("CSV reason: kong"),
    "sealed": N_("CSV reason: sealed"),
    "pay": N_("CSV reason: pay"),
    "score": N_("CSV reason: score"),
    "fee": N_("CSV reason: fee"),
    TABLE: N_("CSV: (table)"),
    "yes": N_("CSV undone: yes"),
    "no": N_("CSV undone: no"),
}
CSV_DECIMALS = 6  # places for an amount with no exact decimal (a third); others are exact


PLAIN_UP_TO = 10 * 2**20  # bytes of CSV sent uncompressed
UPLOAD_LIMIT = 50 * 10**6 - 2**16  # Telegram's 50 MB, less room for the request around it
GZIP_LEVEL = 6  # zlib's default: half the time of 9 (gzip.open's) for ~10% more bytes
BATCH = 4096  # rows formatted and written at a time
MEMO = 4096  # distinct values (times, names, amounts) whose cells are kept at a time
_SPECIAL = re.compile('[,"\r\n]')  # what csv.writer quotes a field for


def export_csv(data: ExportData, lang: str) -> bytes:
    """The ledger as CSV bytes (see `write_csv`)."""
    buf = io.BytesIO()
    write_csv(data, lang, buf)
    return buf.getvalue()


def write_csv(data: ExportData, lang: str, out: IO[bytes]) -> None:
    """The ledger as CSV: UTF-8 with a BOM (spreadsheets then read Chinese right), CRLF lines,
    the header in `lang`, amounts as exact decimals, names guarded against being read as
    formulas; written a batch of rows at a time as they stream."""
    out.write(_header(lang, data.tz).encode("utf-8-sig"))
    rows = iter(data.rows)
    cells = _Cells(data.tz, lang)
    while batch := list(islice(rows, BATCH)):
        out.write(cells.text(batch).encode())


def export_files(data: ExportData, lang: str, directory: Path) -> list[Path]:
    """The files to upload for `data`, written in `directory`: the CSV, or it compressed, or
    compressed parts (each under `UPLOAD_LIMIT`)."""
    plain = directory / data.filename
    with plain.open("wb") as out:
        write_csv(data, lang, out)
    if plain.stat().st_size <= PLAIN_UP_TO:
        return [plain]
    packed = plain.with_name(plain.name + ".gz")
    with plain.open("rb") as src, gzip.open(packed, "wb", GZIP_LEVEL) as dst:
        shutil.copyfileobj(src, dst)
    if packed.stat().st_size <= UPLOAD_LIMIT:
        return [packed]
    packed.unlink()
    return _parts(plain, _header(lang, data.tz).encode("utf-8-sig"))


def _parts(plain: Path, header: bytes) -> list[Path]:
    """The CSV in compressed parts of at most `UPLOAD_LIMIT` uncompressed bytes, whole lines,
    each starting with the header (so each opens on its own)."""
    parts: list[Path] = []
    with plain.open("rb") as src:
        src.readline()  # the header
        line = src.readline()
        while line:
            parts.append(plain.with_name(f"{plain.stem}-part{len(parts) + 1}.csv.gz"))
            with gzip.open(parts[-1], "wb", GZIP_LEVEL) as out:
                out.write(header)
                size = len(header)
                while line and (size == len(header) or size + len(line) <= UPLOAD_LIMIT):
                    out.write(line)
                    size += len(line)
                    line = src.readline()
    return parts


def _header(lang: str, zone: str) -> str:
    """The header line in `lang`; the time column names the time zone."""
    time, *rest = (translator(lang).gettext(msgid) for msgid in HEADER)
    buf = io.StringIO()
    csv.writer(buf).writerow((time.format(zone=zone), *rest))
    return buf.getvalue()


class _Memo(dict[K, str]):
    """A value's cell, made once (`make`) and kept, up to `MEMO` values (then forgotten)."""

    def __init__(self, make: Callable[[K], str]) -> None:
        super().__init__()
        self.make = make

    def __missing__(self, key: K) -> str:
        if len(self) >= MEMO:
            self.clear()
        cell = self[key] = self.make(key)
        return cell


class _Cells:
    """A ledger's cells: its rows' values in the file's form (`ExportRow` has their order),
    each as `csv.writer` writes it (`_field`)."""

    def __init__(self, zone: str, lang: str = "en") -> None:
        self.zone = ZoneInfo(zone)
        self.stamps = _Memo(_field if zone == "UTC" else self._local)  # UTC: as the row has it
        self.amounts = _Memo(_amount)
        self.tiles = _Memo(_tiles)
        gettext = translator(lang).gettext

        def word(stored: str) -> str:
            return stored if lang == "en" or stored not in WORDS else gettext(WORDS[stored])

        def game(stored: str) -> str:  # a free game by its name (English: its stored unit)
            if fee_name(stored):  # a fee by what it was for (`台费`)
                return _cell(fee_name(stored))
            named = free_name(stored)
            return _cell(named) if named and lang != "en" else _cell(word(stored))

        self.words: _Memo[str] = _Memo(lambda stored: _field(word(stored)))  # the reason
        self.games: _Memo[str] = _Memo(lambda stored: _field(game(stored)))
        self.names: _Memo[str | None] = _Memo(
            lambda name: _field(word(TABLE) if name is None else _cell(name))
        )
        self.yes_no = tuple(word(w) for w in YES_NO)
        self.tables: dict[int, int] = {}  # table id → its number in the file

    def _table(self, table_id: int) -> int:
        """The table's number: 1, 2, … in the order of their first rows."""
        return self.tables.setdefault(table_id, len(self.tables) + 1)

    def _local(self, at: str) -> str:
        """A UTC time ("YYYY-MM-DD HH:MM:SS") in the chat's zone, to the second."""
        moment = datetime.fromisoformat(at).replace(tzinfo=UTC).astimezone(self.zone)
        return moment.isoformat(" ", "seconds")[: len("YYYY-MM-DD HH:MM:SS")]

    def text(self, rows: Iterable[ExportRow]) -> str:
        """The CSV lines of `rows` (CRLF ends, as `csv.writer`'s)."""
        stamps, names, amounts, words = self.stamps, self.names, self.amounts, self.words
        tiles, games = self.tiles, self.games
        yes, no = self.yes_no
        table = self._table
        return "".join(
            [
                f"{stamps[at]},{table(t)},{'' if hand_no is None else hand_no},"
                f"{games[unit if game == 'free' or reason == 'fee' else game]},"
                f"{names[payer]},{names[payee]},"
                f"{amounts[amount]},{words[reason]},{names[by]},{yes if undone else no},"
                f"{tiles[hand if reason in _WON else '']},{yes if edited else no}\r\n"
                for (
                    at,
                    hand_no,
                    game,
                    unit,
                    payer,
                    payee,
                    amount,
                    reason,
                    by,
                    undone,
                    hand,
                    t,
                    edited,
                ) in rows
            ]
        )


def _field(text: str) -> str:
    """`text` as a CSV field, as `csv.writer` writes it: quoted when it holds a comma, a quote or
    a line break, else as it is."""
    if _SPECIAL.search(text) is None:
        return text
    buf = io.StringIO()
    csv.writer(buf).writerow((text, ""))  # a second field: a lone empty one is quoted
    return buf.getvalue()[: -len(",\r\n")]


_WON = frozenset({"win", "sealed"})  # the payments of a win: the tiles column shows its hand


def _tiles(text: str) -> str:
    """The tiles' field (several winners' are named: `老王: 123m …; 小李: …`)."""
    return _field(_cell(text))


def _amount(stored: str) -> str:
    """A stored amount ("45/2", "-3") as its field."""
    return _field(decimal_text(Fraction(stored)))


def decimal_text(value: Fraction | int) -> str:
    """A fraction as decimal text: exact when it has a finite decimal (22.5), else rounded to
    CSV_DECIMALS places (a third)."""
    if isinstance(value, int) or value.denominator == 1:
        return str(int(value))
    exact = Decimal(value.numerator) / Decimal(value.denominator)
    d = value.denominator
    for p in (2, 5):
        while d % p == 0:
            d //= p
    if d != 1:
        exact = exact.quantize(Decimal(1).scaleb(-CSV_DECIMALS), ROUND_HALF_EVEN)
    text = format(exact.normalize(), "f") if exact != exact.to_integral() else str(int(exact))
    return text


def _cell(text: str) -> str:
    """Free text (a name) that a spreadsheet would run as a formula gets a leading quote."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
