"""A hand given as tiles, as the chat shows it: the reading scored under its winner's line, and
in /history each winner's tiles (HTML, in the chat's language, through the renderer's `_`)."""

from __future__ import annotations

from html import escape

from bot.commands import labels
from bot.i18n import N_, Gettext
from service.hand_views import HandView, MahjongView, TilesView

ONE_READING = N_("Tiles: {reading}")
BEST_READING = N_("Tiles: {reading} — the highest-scoring of their {n} readings")
WRITTEN = N_("({word} was written beside the tiles: they score more as read above.)")


def reading_line(_: Gettext, tiles: TilesView) -> str:
    """`  🀄 Tiles: [777p] 123m 456m 789s 55s` under a winner's line, with how many readings the
    tiles have and, when a pattern word named a lower one, that it was not taken."""
    reading = f"<code>{escape(tiles.reading)}</code>"
    n = tiles.readings
    line = "  🀄 " + (
        _(BEST_READING, reading=reading, n=n) if n > 1 else _(ONE_READING, reading=reading)
    )
    if tiles.written:
        line += " " + _(WRITTEN, word=_(labels.PATTERN[_label(tiles.written)]))
    return line


def history_lines(_: Gettext, view: HandView) -> list[str]:
    """A hand's tiles in /history, one line per winner who gave them: `  🀄 老王: 111m 222m …`."""
    return [
        f"  🀄 {escape(name)}: <code>{escape(reading)}</code>" for name, reading in hands_of(view)
    ]


def hands_of(view: HandView) -> list[tuple[str, str]]:
    """(winner, reading scored) of each win of a hand given as tiles (the Mini App draws them)."""
    if not isinstance(view.detail, MahjongView):
        return []
    return [(win.winner, win.tiles.reading) for win in view.detail.wins if win.tiles is not None]


def _label(word: str) -> str:
    """A pattern word's label key: `pph` → `pengpenghu`, `qidui` → `qidui0`."""
    return {"pph": "pengpenghu", "qidui": "qidui0"}.get(word, word)
