"""The night's and the season's card as images: a PNG a phone's width, taller with more players,
every character of Chinese and emoji names drawn (matplotlib warns of a missing glyph: here the
warning fails the test), in both languages."""

from __future__ import annotations

import io
import struct
import warnings
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest

from bot.i18n import translator
from bot.presentation import card as drawing
from service.replies import Card, CardHand, CardLine
from tests.glyphs import missing_glyphs

NAMES = ("老王", "小李 🀄", "Chen🌸", "阿张😀", "Ана", "Mr. Very Long Name Indeed The Third")


def a_card(
    players: int = 4, *, stake: Fraction | None = Fraction(1, 2), season: int | None = None
) -> Card:
    names = NAMES[:players]
    start = datetime(2026, 12, 5, 19, 30, tzinfo=UTC)
    units = ("mahjong", "510k", "free:斗地主")
    lines = tuple(
        CardLine(
            name=name,
            nets=tuple((u, Fraction(12 * (players - 2 * i), 1 + (u == "510k"))) for u in units),
            money=Fraction(10 * (players - 2 * i)) if stake else None,
            hands=20,
            wins=players - i,
        )
        for i, name in enumerate(names)
    )
    plan = tuple((names[-1 - i], names[i], Fraction(5 * (i + 1))) for i in range(players // 2))
    return Card(
        title="周五麻将 🀄 Friday",
        season=season,
        start=start,
        end=start + timedelta(hours=4),
        tz="Asia/Shanghai",
        units=units,
        hands=(("mahjong", 24), ("510k", 6), ("free:斗地主", 3)),
        lines=lines,
        biggest=(CardHand(names[0], "mahjong", Fraction(48), 12),),
        most_wins=((names[0], players),),
        plan=(("money", plan),) if stake else (("mahjong", plan),),
        stake=stake,
        streak=((names[1], 5),) if season else (),
        games=tuple((u, stake) for u in units) if stake else (),
    )


def png_size(png: bytes) -> tuple[int, int]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", png[16:24])
    return width, height


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize("season", [None, 3])
def test_the_card_is_a_phone_wide_png_with_every_glyph(lang: str, season: int | None) -> None:
    card = a_card(6, season=season)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "Glyph … missing from font(s)" fails here
        png = drawing.render_card(card, lang)
    width, height = png_size(png)
    assert width == 1080 and height > width
    assert len(png) > 20_000
    texts = [line.name for line in card.lines] + [card.title or ""]
    catalog = translator(lang)
    texts += [catalog.gettext(m) for m in (drawing.MOST_WINS, drawing.STREAK, drawing.WHO_PAYS)]
    assert missing_glyphs("".join(texts)) == set()


def test_more_players_make_a_taller_card_without_a_stake() -> None:
    sizes = [png_size(drawing.render_card(a_card(n, stake=None), "en")) for n in (2, 4, 6)]
    assert [w for w, _ in sizes] == [1080] * 3
    assert sizes[0][1] < sizes[1][1] < sizes[2][1]


def test_a_name_too_long_for_its_column_is_cut() -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    sheet = drawing._Sheet(FigureCanvasAgg(Figure(dpi=drawing.DPI)))
    cut = sheet.fit(NAMES[-1], 15, drawing.NAME_RIGHT - drawing.NAME_LEFT)
    assert cut.endswith("…") and len(cut) < len(NAMES[-1])
    assert sheet.width(cut, 15) <= drawing.NAME_RIGHT - drawing.NAME_LEFT
    assert sheet.fit("老王", 15, 2.0) == "老王"


def test_the_png_decodes(tmp_path: object) -> None:
    from matplotlib import image

    png = drawing.render_card(a_card(), "zh")
    pixels = image.imread(io.BytesIO(png), format="png")
    assert pixels.shape[1] == 1080 and pixels.shape[0] > 1080


def test_the_nights_file_is_dated_in_the_chats_time_zone() -> None:
    """A night that ends at 01:30 in Shanghai (17:30 UTC the day before) is that day's."""
    card = a_card()
    end = datetime(2026, 12, 5, 17, 30, tzinfo=UTC)
    shanghai = Card(**{**card.__dict__, "end": end, "tz": "Asia/Shanghai"})
    assert shanghai.filename == "jifen-2026-12-06.png"
    assert Card(**{**card.__dict__, "end": end, "tz": "UTC"}).filename == "jifen-2026-12-05.png"
