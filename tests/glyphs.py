"""Whether the charts' and cards' fonts can draw a text (their Chinese names, their titles)."""

from __future__ import annotations

from matplotlib import font_manager
from matplotlib.font_manager import FontProperties

from bot.presentation.chart import families


def font_files() -> list[str]:
    """The files of the font chain, in order."""
    return [font_manager.findfont(FontProperties(family=name)) for name in families()]


def missing_glyphs(text: str) -> set[str]:
    """The characters of `text` that no font of the chain can draw (they would be boxes)."""
    fonts = [font_manager.get_font([path]) for path in font_files()]
    return {
        ch
        for ch in set(text)
        if not ch.isspace() and all(f.get_char_index(ord(ch)) == 0 for f in fonts)
    }
