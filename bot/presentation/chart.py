"""Balances over a season as a PNG: matplotlib's Agg canvas, no pyplot (no global figure state,
safe to call from a worker thread), fonts set per text object (no rcParams change).

Chinese names need a CJK font: a .otf/.ttf file in bot/fonts/ if one is shipped there, else the
one of the `pylopdf-fonts-zh-cn` dependency (Noto Sans SC, SIL OFL 1.1), else a CJK font installed
on the system (Noto Sans CJK, WenQuanYi...). DejaVu Sans, shipped with matplotlib, is the
fallback for the characters the CJK font lacks.
"""

from __future__ import annotations

import importlib.util
import io
import logging
import threading
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from matplotlib import font_manager
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import MaxNLocator

from bot.presentation.numbers import fmt
from service.replies import ChartData, ChartLine, ChartSeries

log = logging.getLogger(__name__)

FONT_DIR = Path(__file__).parent / "fonts"
SYSTEM_CJK = (  # installed fonts that cover Chinese, best first
    "Noto Sans SC",
    "Noto Sans CJK SC",
    "Source Han Sans SC",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Droid Sans Fallback",
    "Noto Sans CJK JP",
)
FALLBACK = "DejaVu Sans"
#: Installed emoji fonts matplotlib can draw with, best first. Noto Color Emoji (the
#: fonts-noto-color-emoji package) is not one: its glyphs are fixed-size colour bitmaps, which
#: matplotlib refuses ("Non-scalable fonts are not supported"), so it never enters the list of
#: fonts matplotlib knows.
SYSTEM_EMOJI = ("Noto Emoji", "Symbola", "OpenMoji", "Twemoji Mozilla", "Segoe UI Emoji")
EMOJI_PACKAGE, EMOJI_FILE = "manimgx_fonts", "NotoEmoji[wght].ttf"  # Noto Emoji (OFL), monochrome
DPI = 110
# Inches: the plot, the margin left of it, each game's row (its title, plot, axis label), the
# figure's title above the rows.
PLOT_W, PLOT_H, LEFT, ROW_H, BELOW, TOP = 7.0, 3.0, 0.75, 4.0, 0.6, 0.55
LEGEND_SIZE = 10
MARKERS_UP_TO = 40  # hands; more make the markers a blur
STYLES: tuple[Any, ...] = ("-", "--", ":", "-.")  # after the ten colours are used
DASHED = (0, (4, 4))
NAME_MAX = 24  # characters of a name in the legend
PNG_LEVEL = 3  # zlib level: encodes ~3x faster than the default 6, the file ~6 % bigger
_lock = threading.Lock()


def _packaged_font() -> Path | None:
    """A CJK font file shipped with the bot or installed with its dependencies."""
    shipped = sorted(p for p in FONT_DIR.glob("*") if p.suffix.lower() in (".otf", ".ttf"))
    if shipped:
        return shipped[0]
    try:
        import pylopdf_fonts_zh_cn
    except ImportError:
        return None
    path = Path(pylopdf_fonts_zh_cn.sans_path())
    return path if path.is_file() else None


@cache
def cjk_family() -> str | None:
    """The family name of the CJK font the chart uses (registered once); None: no such font."""
    with _lock:
        path = _packaged_font()
        if path is not None:
            font_manager.fontManager.addfont(str(path))
            return font_manager.get_font([str(path)]).family_name
        installed = {f.name for f in font_manager.fontManager.ttflist}
        found = next((name for name in SYSTEM_CJK if name in installed), None)
        if found is None:
            log.warning("no CJK font found: Chinese names will show as boxes in /chart")
        return found


@cache
def emoji_family() -> str | None:
    """The family name of the emoji font (registered once), from the `manimgx-fonts`
    dependency, else an emoji font installed on the system that matplotlib can draw with
    (`SYSTEM_EMOJI`); None: neither."""
    spec = importlib.util.find_spec(EMOJI_PACKAGE)
    folder = Path(spec.origin).parent if spec is not None and spec.origin else None
    path = folder / EMOJI_FILE if folder is not None else None
    if path is None or not path.is_file():
        installed = {f.name for f in font_manager.fontManager.ttflist}
        found = next((name for name in SYSTEM_EMOJI if name in installed), None)
        if found is None:
            log.warning("no emoji font found: emoji in names will show as boxes in pictures")
        return found
    with _lock:
        font_manager.fontManager.addfont(str(path))
        return font_manager.get_font([str(path)]).family_name


def families() -> list[str]:
    """The font chain of every text of the pictures: the CJK font, the emoji font, then
    DejaVu Sans (for what neither has)."""
    return [name for name in (cjk_family(), emoji_family(), FALLBACK) if name]


def font(size: float | None = None) -> FontProperties:
    return FontProperties(family=families(), size=size)


def chart_figure(
    data: ChartData,
    title: str,
    *,
    unit_titles: Mapping[str, str] | None = None,
    xlabel: str = "hands",
    empty: str = "No hands recorded yet.",
) -> Figure:
    """The figure (not yet drawn): one plot per game, a line per player, the legend beside it
    with the balances. Laid out by hand (constrained layout would draw it twice)."""
    fig = Figure(dpi=DPI)
    canvas = FigureCanvasAgg(fig)
    legends = [[_label(line) for line in s.lines] for s in data.series]
    side = _legend_width(canvas, [label for labels in legends for label in labels])
    rows = max(len(data.series), 1)
    width, height = LEFT + PLOT_W + side, TOP + rows * ROW_H
    fig.set_size_inches(width, height)
    fig.suptitle(title, y=1 - 0.15 / height, va="top", fontproperties=font(14), parse_math=False)
    if not data.series:
        fig.text(0.5, 0.5, empty, ha="center", va="center", fontproperties=font(12))
        return fig
    for row, (series, labels) in enumerate(zip(data.series, legends, strict=True)):
        bottom = height - TOP - (row + 1) * ROW_H + BELOW
        ax = fig.add_axes((LEFT / width, bottom / height, PLOT_W / width, PLOT_H / height))
        _plot(ax, series, labels, (unit_titles or {}).get(series.unit, series.unit), xlabel)
    return fig


def _label(line: ChartLine) -> str:
    name = line.name if len(line.name) <= NAME_MAX else line.name[: NAME_MAX - 1] + "…"
    return f"{name} {fmt(line.values[-1], signed=True)}"


def _legend_width(canvas: FigureCanvasAgg, labels: Sequence[str]) -> float:
    """Inches for the legend right of the plots: its longest label, the line sample, margins."""
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]  # untyped in matplotlib
    prop = font(LEGEND_SIZE)
    widest = max(
        (renderer.get_text_width_height_descent(s, prop, ismath=False)[0] for s in labels),
        default=0.0,
    )
    return widest / DPI * _columns(labels) + 0.9


def _plot(ax: Axes, series: ChartSeries, labels: Sequence[str], title: str, xlabel: str) -> None:
    xs = series.at
    marker = "o" if series.hands <= MARKERS_UP_TO else None
    handles, seen = [], set()
    for i, line in enumerate(series.lines):
        # A line on top of an earlier one (510K partners) is dashed so both show.
        style = DASHED if line.values in seen else STYLES[(i // 10) % len(STYLES)]
        seen.add(line.values)
        (drawn,) = ax.plot(
            xs,
            [float(v) for v in line.values],  # display only: the data stays exact
            color=f"C{i % 10}",
            linestyle=style,
            marker=marker,
            markersize=3,
            linewidth=1.6,
        )
        handles.append(drawn)
    ax.axhline(0, color="0.6", linewidth=0.8, zorder=0)
    # y given: matplotlib does not measure the axes to lift the title over them (a sixth of a
    # drawing); nothing is drawn above a plot, so the title stays where it was.
    ax.set_title(title, y=1.0, fontproperties=font(12), parse_math=False)
    ax.set_xlabel(xlabel, fontproperties=font(10), parse_math=False)
    ax.set_xlim(0, max(series.hands, 1))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(True, alpha=0.3)
    legend = ax.legend(
        handles,
        labels,
        prop=font(LEGEND_SIZE),
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
        ncols=_columns(labels),
        frameon=False,
    )
    for text in legend.get_texts():
        text.set_parse_math(False)  # a name with "$" is not a formula


def _columns(labels: Sequence[str]) -> int:
    return 1 if len(labels) <= 12 else 2


def render_chart(
    data: ChartData,
    title: str,
    *,
    unit_titles: Mapping[str, str] | None = None,
    xlabel: str = "hands",
    empty: str = "No hands recorded yet.",
) -> bytes:
    """The chart as PNG bytes (plain text arguments: they are not HTML)."""
    fig = chart_figure(data, title, unit_titles=unit_titles, xlabel=xlabel, empty=empty)
    buf = io.BytesIO()
    fig.savefig(
        buf,
        format="png",
        dpi=DPI,
        metadata={"Software": None},
        pil_kwargs={"compress_level": PNG_LEVEL},
    )
    return buf.getvalue()
