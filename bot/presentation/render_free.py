"""Free scoring as chat messages: a round of a free game, a transfer, the balances after them,
and the title of a free unit (HTML, in the chat's language, through the renderer's `_`)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from html import escape

from bot.commands import labels
from bot.i18n import Gettext
from bot.presentation.numbers import fmt
from scoring.games import EventKind, Game, Unit, fee_name, free_name
from service.hand_views import FreeView, HandView
from service.replies import FreeSection


def unit_title(_: Gettext, unit: str) -> str:
    """`Mahjong points`, `510K scores`, `Free points`, `Free points · 斗地主`."""
    if Unit.of(unit) is Unit.MONEY:
        return escape(fee_name(unit)) or _(labels.UNIT[Unit.MONEY])
    if Unit.of(unit) is not Unit.FREE:
        return _(labels.UNIT[unit])
    name = free_name(unit)
    return _(labels.UNIT[Unit.FREE]) + (f" · {escape(name)}" if name else "")


def free_game(view: HandView) -> str:
    """The free game a record was at (`斗地主`; "" for the unnamed one, or another game)."""
    return free_name(view.detail.unit) if isinstance(view.detail, FreeView) else ""


def table_title(_: Gettext, view: HandView) -> str:
    """The table a record was at, where /history lists several: `Mahjong table`, `斗地主 table`."""
    if view.game == Game.MAHJONG:
        return _("Mahjong table")
    if view.game in (Game.K510, Game.K510_3):
        return _("510K table")
    name = free_game(view)
    return _("{game} table", game=escape(name)) if name else _("Free scoring table")


def record_title(_: Gettext, view: HandView) -> str:
    """What /undo calls a free round or a transfer: `斗地主 round #7`, `transfer #8`."""
    if view.kind == EventKind.PAY:
        return _("transfer #{n}", n=view.hand_no)
    name = free_game(view)
    if name:
        return _("{game} round #{n}", game=escape(name), n=view.hand_no)
    return _("round #{n}", n=view.hand_no)


def _heading(_: Gettext, view: HandView) -> str:
    if view.kind == EventKind.PAY:
        return "💸 " + _("Transfer #{n}", n=view.hand_no)
    name = free_game(view)
    if name:
        return "🎲 " + _("{game}, round #{n}", game=escape(name), n=view.hand_no)
    return "🎲 " + _("Round #{n}", n=view.hand_no)


def free_lines(_: Gettext, view: HandView, record: FreeView, quoted: str) -> list[str]:
    """A recorded round or transfer: its title and command, then who scored or paid what."""
    if view.kind == EventKind.PAY:
        unit = record.unit
        lines = [_heading(_, view) + f" — <i>{quoted}</i>"]
        lines += [
            f"  {escape(p.payer or '?')} → {escape(p.payee or '?')} {fmt(p.amount)}"
            f" · {unit_title(_, unit)}"
            for p in view.payments
        ]
        return lines
    return [_heading(_, view) + f" — <i>{quoted}</i>"]


def totals_line(_: Gettext, totals: Sequence[tuple[str, Fraction | int]]) -> str:
    """`Totals: 老王 +30 · 小李 -10 · 阿张 -20`."""
    shown = " · ".join(f"{escape(name)} {fmt(amount, signed=True)}" for name, amount in totals)
    return _("Totals now: {totals}", totals=shown)


def free_stats(_: Gettext, sections: Sequence[FreeSection]) -> list[str]:
    """/stats of the free games: rounds, wins, biggest round and net per player."""
    lines: list[str] = []
    for section in sections:
        head = _("🎲 {unit} · {n} round(s)", unit=unit_title(_, section.unit), n=section.rounds)
        lines += ["", f"<b>{head}</b>"]
        for line in section.lines:
            lines.append(f"{escape(line.name)} {fmt(line.net, signed=True)}")
            stats = _("rounds {rounds} · won {wins}", rounds=line.rounds, wins=line.wins)
            if line.biggest is not None:
                stats += " · " + _("biggest {biggest}", biggest=fmt(line.biggest, signed=True))
            lines.append("  " + stats)
    return lines
