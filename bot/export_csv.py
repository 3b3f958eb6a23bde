"""/export's file: a season's ledger as CSV, its header in the chat's language.

The cells stay as stored, whatever the language: games, reasons, names, exact amounts.
"""

from __future__ import annotations

import csv
import io
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from bot.i18n import N_, translator
from service.replies import ExportData

HEADER = (
    N_("time (UTC)"),
    N_("hand"),
    N_("game"),
    N_("payer"),
    N_("payee"),
    N_("amount"),
    N_("reason"),
    N_("recorded by"),
    N_("undone"),
)
TABLE = "(table)"  # the CSV's name for the table, the other side of a 510K score
YES_NO = ("yes", "no")  # undone or not
CSV_DECIMALS = 6  # places for an amount with no exact decimal (a third); others are exact


def export_csv(data: ExportData, lang: str) -> bytes:
    """The ledger as CSV: UTF-8 with a BOM (spreadsheets then read Chinese right), CRLF lines,
    the header in `lang`, amounts as exact decimals, names guarded against being read as
    formulas."""
    buf = io.StringIO()
    writer = csv.writer(buf)
    writer.writerow(translator(lang).gettext(msgid) for msgid in HEADER)
    for row in data.rows:
        writer.writerow(
            (
                row.at.strftime("%Y-%m-%d %H:%M:%S"),
                "" if row.hand_no is None else row.hand_no,
                _cell(row.unit if row.game == "free" else row.game),  # free:<its name>
                _cell(TABLE if row.payer is None else row.payer),
                _cell(TABLE if row.payee is None else row.payee),
                decimal_text(row.amount),
                row.reason,
                _cell(row.recorded_by),
                YES_NO[0] if row.undone else YES_NO[1],
            )
        )
    return buf.getvalue().encode("utf-8-sig")


def decimal_text(value: Fraction) -> str:
    """A fraction as decimal text: exact when it has a finite decimal (22.5), else rounded to
    CSV_DECIMALS places (a third)."""
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
