"""/chart's picture: a real PNG, every player named in it, Chinese drawn with a font that has the
glyphs (no boxes), global matplotlib settings left alone, and fast enough for a long season."""

from __future__ import annotations

import struct
import warnings
from fractions import Fraction

import matplotlib
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from bot.presentation import chart, render_insight
from bot.presentation.chart_process import draw
from bot.presentation.numbers import fmt
from bot.presentation.render import Renderer
from service.replies import ChartData, ChartLine, ChartSeries
from tests.glyphs import missing_glyphs

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
NAMES = ("老王", "Li", "$Zhang$", "_Chen", "喆")


def series(unit: str, names: tuple[str, ...], hands: int) -> ChartSeries:
    lines = []
    for i, name in enumerate(names):
        values = [Fraction(0)]
        for h in range(hands):
            values.append(values[-1] + Fraction((h * 7 + i * 5) % 11 - 5, 2))
        lines.append(ChartLine(name, tuple(values)))
    return ChartSeries(unit, tuple(range(hands + 1)), tuple(lines))


def data(hands: int = 12) -> ChartData:
    return ChartData(
        season=3,
        archived=False,
        series=(series("mahjong", NAMES[:4], hands), series("510k", ("老王", "喆", "Li"), 5)),
    )


def texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == PNG_SIGNATURE and png[12:16] == b"IHDR"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def test_the_figure_names_every_player_with_the_balance() -> None:
    fig = chart.chart_figure(data(), "第 3 赛季", unit_titles={"mahjong": "麻将", "510k": "510K"})
    shown = texts(fig)
    for s in data().series:
        for line in s.lines:  # "$" and a leading "_" are kept: not maths, not hidden
            assert f"{line.name} {fmt(line.values[-1], signed=True)}" in shown
    assert {"第 3 赛季", "麻将", "510K"} <= set(shown)
    assert len(fig.axes) == 2


EMOJI_NAMES = ("小李🐼", "❤️小红", "👍🏻Bob", "🇨🇳阿张", "👨‍👩‍👧家")


def test_emoji_in_names_are_drawn_in_the_legend() -> None:
    """An emoji in a name is a glyph of the emoji font in the chain, not a box: nothing in the
    legend is missing from every font, and matplotlib warns of no missing glyph."""
    assert chart.emoji_family() is not None
    legend = [f"{name} +1" for name in EMOJI_NAMES]
    assert missing_glyphs("".join(legend)) == set()
    four = ChartData(1, False, (series("mahjong", EMOJI_NAMES[:4], 3),))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = chart.chart_figure(four, "Season 1")
        FigureCanvasAgg(fig).draw()
    assert {
        f"{n} {fmt(line.values[-1], signed=True)}"
        for n, line in zip(EMOJI_NAMES, four.series[0].lines, strict=False)
    } <= set(texts(fig))


def test_chinese_is_drawn_with_a_font_that_has_it() -> None:
    assert chart.cjk_family() is not None, "no CJK font: install pylopdf-fonts-zh-cn"
    assert missing_glyphs("".join(NAMES) + "第赛季麻将局数") == set()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib warns "Glyph ... missing from font(s)"
        png = chart.render_chart(data(), "第 3 赛季 Season 3")
    width, height = png_size(png)
    assert 800 <= width <= 2000 and 800 <= height <= 2000
    assert len(png) > 20_000


def test_one_game_one_plot_and_the_size_follows() -> None:
    one = ChartData(season=1, archived=True, series=(series("510k", ("A", "B", "C"), 3),))
    fig = chart.chart_figure(one, "t")
    assert len(fig.axes) == 1
    w1, h1 = png_size(chart.render_chart(one, "t"))
    _, h2 = png_size(chart.render_chart(data(), "t"))
    assert h2 > h1 * 1.5 and w1 > 500


def test_an_empty_season_still_makes_a_picture() -> None:
    empty = ChartData(season=1, archived=False, series=())
    fig = chart.chart_figure(empty, "t", empty="还没有记录任何一局。")
    assert "还没有记录任何一局。" in texts(fig)
    png_size(chart.render_chart(empty, "t"))


def test_global_settings_are_left_alone() -> None:
    before = dict(matplotlib.rcParams)
    chart.render_chart(data(), "t")
    assert dict(matplotlib.rcParams) == before


def test_a_long_season_is_drawn() -> None:
    long = ChartData(
        season=1,
        archived=False,
        series=(series("mahjong", NAMES[:4], 400), series("510k", NAMES[:4], 200)),
    )
    assert png_size(chart.render_chart(long, "t")) == png_size(chart.render_chart(data(), "t"))


def test_the_chat_language_is_used() -> None:
    png = draw(data(), *render_insight.chart_texts(Renderer("zh")._, data()))
    png_size(png)
    assert render_insight.chart_title(Renderer("en")._, data()) == "Balances, season 3"
    archived = ChartData(season=2, archived=True, series=())
    assert "&" not in render_insight.chart_title(Renderer("en")._, archived)
    assert render_insight.chart_caption(Renderer("en")._, archived) == "No hands recorded yet."


def test_each_plot_title_sits_just_above_its_plot() -> None:
    """The titles are placed, not measured (matplotlib's lift of a title over what is drawn on
    top of a plot is skipped): each must still clear its plot and the figure's title."""
    fig = chart.chart_figure(data(), "第 3 赛季", unit_titles={"mahjong": "麻将", "510k": "510K"})
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    fig.draw(renderer)
    top_title = fig.get_suptitle()
    suptitle = next(t for t in fig.texts if t.get_text() == top_title).get_window_extent(renderer)
    for ax in fig.axes:
        title = ax.title.get_window_extent(renderer)
        assert 0 < title.y0 - ax.bbox.y1 < 20  # pixels: just above the frame
        for axis in (ax.xaxis, ax.yaxis):  # clear of the tick labels
            labels = axis.get_tightbbox(renderer)
            assert labels is not None and not title.overlaps(labels)
        assert title.y1 < suptitle.y0
