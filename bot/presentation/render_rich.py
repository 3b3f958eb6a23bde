"""/standings, /settle money and /summary as tables: one `Sheet` made from the same reply the
text renderer reads (its rows are the text's lines, its notes the text's own sentences), and
its Rich Message blocks (Bot API 10.1/10.3: `InputRichBlockTable`, compact). Where the API
does not take them the chat gets the text (`bot.chat.rich`): the content is the same."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from bot.i18n import N_, Gettext
from bot.presentation.card_words import HANDS_COUNTED, WHO_PAYS, game_title, in_money, notes
from bot.presentation.numbers import fmt, fmt_money, shown_apart
from bot.presentation.render_beyond import card_caption
from bot.presentation.render_free import unit_title
from bot.presentation.render_hands import progress_line
from bot.presentation.render_money import money_notes
from bot.presentation.render_views import NOT_ADDING_UP
from service.replies import Card, MoneyView, StandingsView

JSON = dict[str, Any]
PLAYER, BALANCE = N_("Player"), N_("Balance")
PAYER, PAYEE, AMOUNT, MONEY = N_("Pays"), N_("To"), N_("Amount"), N_("Money")
_TAG = re.compile(r"<[^<>]*>")


@dataclass(frozen=True)
class Grid:
    """One table: its caption, its header, its rows (text), which columns are numbers."""

    caption: str
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    numbers: frozenset[int] = frozenset()


@dataclass(frozen=True)
class Sheet:
    """A reply as tables: its title, the tables, the sentences after them (plain text)."""

    title: str
    grids: tuple[Grid, ...]
    notes: tuple[str, ...] = ()


def plain(text: str) -> str:
    """A rendered line (HTML) as the plain text a Rich Message cell holds."""
    return html.unescape(_TAG.sub("", text))


def standings_sheet(_: Gettext, v: StandingsView) -> Sheet | None:
    """Each game's balances, best first (None: nothing recorded: the text says so)."""
    if not v.sections:
        return None
    title = (
        _("Standings of season {n} (archived):", n=v.season)
        if v.archived
        else _("Standings of season {n}:", n=v.season)
    )
    grids = tuple(
        Grid(
            plain(unit_title(_, unit)),
            ("#", _(PLAYER), _(BALANCE)),
            tuple(
                (str(i), name, fmt(amount, signed=True)) for i, (name, amount) in enumerate(rows, 1)
            ),
            frozenset({0, 2}),
        )
        for unit, rows in v.sections
    )
    after = []
    if any(shown_apart(amount for _n, amount in rows) for _u, rows in v.sections):
        after.append(_(NOT_ADDING_UP))
    if v.progress is not None:
        after.append(progress_line(_, v.progress))
    return Sheet(plain(title), grids, tuple(plain(line) for line in after))


def money_sheet(_: Gettext, v: MoneyView) -> Sheet | None:
    """Who pays whom in money (None: nothing to pay: the text's one line says why)."""
    if not v.games or not v.transfers:
        return None
    grid = Grid(
        "",
        (_(PAYER), _(PAYEE), _(AMOUNT)),
        tuple((a, b, fmt_money(amount)) for a, b, amount in v.transfers),
        frozenset({2}),
    )
    title = _("Money to square season {n}:", n=v.season)
    return Sheet(plain(title), (grid,), tuple(plain(line) for line in money_notes(_, v)))


def card_sheet(_: Gettext, v: Card) -> Sheet | None:
    """The night (or season): each player's net per game and in money, then who pays whom."""
    if not v.lines:
        return None
    units = v.units
    money = any(line.money is not None for line in v.lines)
    header = (_(PLAYER), *(game_title(_, u) for u in units), *((_(MONEY),) if money else ()))
    rows = []
    for line in v.lines:
        nets = dict(line.nets)
        cells = [line.name, *(fmt(nets[u], signed=True) if u in nets else "" for u in units)]
        if money:
            cells.append("" if line.money is None else fmt_money(line.money))
        rows.append(tuple(cells))
    grids = [Grid("", header, tuple(rows), frozenset(range(1, len(header))))]
    for section, plan in v.plan:
        if not plan:
            continue
        caption = _(WHO_PAYS) + " · " + (in_money(_, v) if v.games else game_title(_, section))
        shown = fmt_money if v.games else fmt
        rows_ = tuple((a, b, shown(amount)) for a, b, amount in plan)
        grids.append(Grid(plain(caption), (_(PAYER), _(PAYEE), _(AMOUNT)), rows_, frozenset({2})))
    head = card_caption(_, v).split("\n", 1)[0]
    after = [_(HANDS_COUNTED), *notes(_, v)]
    return Sheet(plain(head), tuple(grids), tuple(plain(line) for line in after))


#: The replies sent as a table where the API takes it, and how each becomes its sheet.
SHEETS: Mapping[type, Callable[[Gettext, Any], Sheet | None]] = {
    StandingsView: standings_sheet,
    MoneyView: money_sheet,
    Card: card_sheet,
}


def cell(text: str, *, header: bool = False, number: bool = False) -> JSON:
    """A `RichBlockTableCell`: its text (a RichText may be a plain String), aligned."""
    found: JSON = {"text": text, "align": "right" if number else "left", "valign": "middle"}
    if header:
        found["is_header"] = True
    return found


def blocks(sheet: Sheet) -> list[JSON]:
    """The sheet as `InputRichBlock`s: a heading, a compact striped table per grid (its caption
    under it), a paragraph per note."""
    out: list[JSON] = [{"type": "heading", "text": sheet.title, "size": 3}]
    for grid in sheet.grids:
        head = [cell(h, header=True, number=i in grid.numbers) for i, h in enumerate(grid.header)]
        cells = [head] + [
            [cell(text, number=i in grid.numbers) for i, text in enumerate(row)]
            for row in grid.rows
        ]
        table: JSON = {
            "type": "table",
            "cells": cells,
            "is_bordered": True,
            "is_striped": True,
            "is_compact": True,
        }
        if grid.caption:
            table["caption"] = grid.caption
        out.append(table)
    out += [{"type": "paragraph", "text": note} for note in sheet.notes]
    return out
