"""The night's card and the season's as one PNG made to be forwarded: portrait, a phone's width
(1080 pixels), large type; each player's net per game and in money, the highlights, who pays
whom. Drawn with the chart's stack (matplotlib's Agg canvas, no pyplot, the font chain of
`bot.presentation.chart`: CJK, emoji, DejaVu Sans), in the drawing process
(`bot.presentation.chart_process.draw_card`)."""

from __future__ import annotations

import io
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from bot.commands.timezones import local
from bot.i18n import N_, translator
from bot.presentation.card_words import WHO_PAYS, game_title, in_money, notes
from bot.presentation.chart import PNG_LEVEL, font
from bot.presentation.numbers import fmt, fmt_money
from service.replies import Card, CardLine

DPI = 180
WIDTH = 6.0  # inches: 1080 pixels
PAD = 0.32
NAME_LEFT, NAME_RIGHT = PAD + 0.45, 2.75  # the players' names
ROW = 0.52  # a player's row
HEAD = 1.55  # the coloured band on top
LINE = 0.46  # a line of the highlights and of who pays whom
FELT, FELT_TEXT = "#17603f", "#ffffff"
INK, MUTED, STRIPE = "#1f2328", "#6e7781", "#f1f5f2"
MONEY_BAND = (0.96, 0.77, 0.09, 0.16)  # a translucent gold over the stripes
PLUS, MINUS = "#1a7f37", "#cf222e"

MONEY = N_("Money")
SEASON = N_("Season {n}")
HANDS = N_("{n} hand(s)")
BIGGEST = N_("🏆 Biggest hand: {name} {amount} ({game})")
BIGGEST_NO = N_("🏆 Biggest hand: {name} {amount} ({game} #{n})")
MOST_WINS = N_("🎯 Most wins: {names} ({n})")
STREAK = N_("🔥 Longest run: {names}, {n} hands won in a row")
SQUARE = N_("Everyone is square.")
FOOTER = N_("jifen 积分 · /summary")
FOOTER_SEASON = N_("jifen 积分 · season card")


@dataclass
class _Op:
    """One thing to draw, placed in inches from the top left."""

    kind: str  # "text" | "rect"
    x: float
    y: float
    text: str = ""
    size: float = 14
    color: Any = INK
    ha: str = "left"
    bold: bool = False
    w: float = 0.0
    h: float = 0.0


class _Sheet:
    """The card's drawing operations, laid out top down; the height follows."""

    def __init__(self, canvas: FigureCanvasAgg) -> None:
        self.ops: list[_Op] = []
        self.y = 0.0
        self.renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]  # untyped

    def text(self, x: float, y: float, text: str, **style: Any) -> None:
        self.ops.append(_Op("text", x, y, text, **style))

    def rect(self, x: float, y: float, w: float, h: float, color: Any) -> None:
        self.ops.append(_Op("rect", x, y, w=w, h=h, color=color))

    def width(self, text: str, size: float, bold: bool = False) -> float:
        """Inches `text` takes in the card's font."""
        prop = font(size)
        found = self.renderer.get_text_width_height_descent(text, prop, ismath=False)
        return float(found[0]) / DPI

    def fit(self, text: str, size: float, room: float) -> str:
        """`text`, cut with … until it fits in `room` inches."""
        if self.width(text, size) <= room:
            return text
        while len(text) > 1 and self.width(text + "…", size) > room:
            text = text[:-1]
        return text + "…"


def _signed(amount: Fraction | int, money: bool = False) -> tuple[str, str]:
    text = fmt_money(amount) if money else fmt(amount)
    if amount > 0:
        text = "+" + text
    return text, PLUS if amount > 0 else MINUS if amount < 0 else MUTED


def render_card(card: Card, lang: str) -> bytes:
    """The card as PNG bytes, in `lang` ("zh" or "en")."""
    catalog = translator(lang)

    def t(msgid: str, **params: Any) -> str:
        text = catalog.gettext(msgid)
        return text.format(**params) if params else text

    fig = Figure(dpi=DPI)
    canvas = FigureCanvasAgg(fig)
    sheet = _Sheet(canvas)
    _head(sheet, card, t)
    _table(sheet, card, t)
    _highlights(sheet, card, t)
    _plan(sheet, card, t)
    sheet.y += 0.25
    footer = t(FOOTER_SEASON if card.season else FOOTER)
    sheet.text(WIDTH - PAD, sheet.y + 0.2, footer, size=10, color=MUTED, ha="right")
    height = sheet.y + 0.45
    fig.set_size_inches(WIDTH, height)
    fig.patch.set_facecolor("white")
    for op in sheet.ops:
        if op.kind == "rect":
            y = 1 - (op.y + op.h) / height
            fig.patches.append(
                Rectangle(
                    (op.x / WIDTH, y),
                    op.w / WIDTH,
                    op.h / height,
                    transform=fig.transFigure,
                    facecolor=op.color,
                    edgecolor="none",
                )
            )
        else:
            prop = font(op.size)  # one weight: Noto Sans SC ships no bold
            fig.text(
                op.x / WIDTH,
                1 - op.y / height,
                op.text,
                ha=op.ha,
                va="baseline",
                color=op.color,
                fontproperties=prop,
                parse_math=False,
            )
    buf = io.BytesIO()
    fig.savefig(
        buf,
        format="png",
        dpi=DPI,
        facecolor="white",
        metadata={"Software": None},
        pil_kwargs={"compress_level": PNG_LEVEL},
    )
    return buf.getvalue()


def _head(sheet: _Sheet, card: Card, t: Callable[..., str]) -> None:
    sheet.rect(0, 0, WIDTH, HEAD, FELT)
    title = card.title or "jifen 积分"
    if card.season:
        title = f"{title} · {t(SEASON, n=card.season)}"
    title = sheet.fit("🀄 " + title, 21, WIDTH - 2 * PAD)
    sheet.text(PAD, 0.55, title, size=21, color=FELT_TEXT, bold=True)
    start, end = local(card.start, card.tz), local(card.end, card.tz)
    if card.season:
        when = f"{start:%Y-%m-%d} – {end:%Y-%m-%d}"
    elif start.date() == end.date():
        when = f"{start:%Y-%m-%d %H:%M}–{end:%H:%M}"
    else:
        when = f"{start:%Y-%m-%d %H:%M} – {end:%m-%d %H:%M}"
    sheet.text(PAD, 0.98, when, size=13, color=FELT_TEXT)
    games = "   ".join(f"{game_title(t, u)} {t(HANDS, n=n)}" for u, n in card.hands)
    sheet.text(PAD, 1.32, sheet.fit(games, 13, WIDTH - 2 * PAD), size=13, color=FELT_TEXT)
    sheet.y = HEAD + 0.2


def _columns(card: Card) -> list[tuple[str, str]]:
    """The number columns: (key, kind) for each game, then the money."""
    cols = [(u, "unit") for u in card.units]
    return [*cols, ("money", "money")] if card.games else cols


def _table(sheet: _Sheet, card: Card, t: Callable[..., str]) -> None:
    cols = _columns(card)
    left, right = NAME_RIGHT + 0.1, WIDTH - PAD
    step = (right - left) / max(len(cols), 1)
    size = 15 if len(cols) <= 3 else 13 if len(cols) <= 4 else 11
    y = sheet.y + 0.3
    for i, (key, kind) in enumerate(cols):
        label = t(MONEY) if kind == "money" else game_title(t, key)
        label = sheet.fit(label, 11, step - 0.08)
        sheet.text(left + (i + 1) * step, y, label, size=11, color=MUTED, ha="right", bold=True)
    y += 0.18
    for row in range(0, len(card.lines), 2):
        sheet.rect(PAD / 2, y + row * ROW, WIDTH - PAD, ROW, STRIPE)
    if card.games:  # the money column stands out: what the night comes to
        band = len(card.lines) * ROW + 0.5
        sheet.rect(right - step + 0.02, y - 0.5, step + PAD / 2 - 0.02, band, MONEY_BAND)
    for row, line in enumerate(card.lines):
        base = y + row * ROW + ROW * 0.66
        sheet.text(PAD, base, f"{row + 1}", size=12, color=MUTED)
        name = sheet.fit(line.name, size, NAME_RIGHT - NAME_LEFT)
        sheet.text(NAME_LEFT, base, name, size=size)
        for i, (key, kind) in enumerate(cols):
            value = _value(line, key, kind)
            if value is not None:
                text, color = _signed(value, kind == "money")
                sheet.text(left + (i + 1) * step, base, text, size=size, color=color, ha="right")
    sheet.y = y + len(card.lines) * ROW + 0.25


def _value(line: CardLine, key: str, kind: str) -> Fraction | None:
    if kind == "money":
        return line.money
    return dict(line.nets).get(key)


def _highlights(sheet: _Sheet, card: Card, t: Callable[..., str]) -> None:
    lines = []
    for hand in card.biggest:
        game = game_title(t, hand.unit)
        amount = fmt(hand.amount, signed=True)
        if hand.hand_no is not None:
            lines.append(t(BIGGEST_NO, name=hand.name, amount=amount, game=game, n=hand.hand_no))
        else:
            lines.append(t(BIGGEST, name=hand.name, amount=amount, game=game))
    if card.most_wins:
        names = ", ".join(name for name, _ in card.most_wins)
        lines.append(t(MOST_WINS, names=names, n=card.most_wins[0][1]))
    if card.streak:
        names = ", ".join(name for name, _ in card.streak)
        lines.append(t(STREAK, names=names, n=card.streak[0][1]))
    for text in lines:
        sheet.y += LINE
        sheet.text(PAD, sheet.y, sheet.fit(text, 14, WIDTH - 2 * PAD), size=14)
    if lines:
        sheet.y += 0.2


def _plan(sheet: _Sheet, card: Card, t: Callable[..., str]) -> None:
    sheet.y += 0.3
    sheet.rect(PAD, sheet.y - 0.12, WIDTH - 2 * PAD, 0.02, MUTED)
    sheet.y += LINE
    head = t(WHO_PAYS)
    if card.games:
        head += " · " + in_money(t, card)
    elif len(card.plan) == 1:  # in the points of its one game
        head += " · " + game_title(t, card.plan[0][0])
    sheet.text(PAD, sheet.y, sheet.fit(head, 15, WIDTH - 2 * PAD), size=15, bold=True)
    if not card.plan:
        sheet.y += LINE
        sheet.text(PAD, sheet.y, t(SQUARE), size=14, color=MUTED)
        return
    for section, transfers in card.plan:
        if not card.games and len(card.plan) > 1:
            sheet.y += LINE
            sheet.text(PAD, sheet.y, game_title(t, section), size=12, color=MUTED, bold=True)
        for payer, payee, amount in transfers:
            sheet.y += LINE
            half = (WIDTH - 2 * PAD - 1.3 - sheet.width(" → ", 15)) / 2  # each name its half
            who = f"{sheet.fit(payer, 15, half)} → {sheet.fit(payee, 15, half)}"
            sheet.text(PAD + 0.1, sheet.y, who, size=15)
            shown = fmt_money(amount) if card.games else fmt(amount)
            sheet.text(WIDTH - PAD, sheet.y, shown, size=15, ha="right", bold=True)
    for note in notes(t, card):
        sheet.y += LINE * 0.8
        sheet.text(PAD, sheet.y, sheet.fit(note, 11, WIDTH - 2 * PAD), size=11, color=MUTED)
