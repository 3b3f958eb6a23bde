"""A hand given as tiles, as the chat shows it: the reading scored under its winner's line, and
in /history each winner's tiles (HTML, in the chat's language, through the renderer's `_`)."""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from bot.commands import labels
from bot.i18n import N_, Gettext
from service.replies import HandView

ONE_READING = N_("Tiles: {reading}")
BEST_READING = N_("Tiles: {reading} — the highest-scoring of their {n} readings")
WRITTEN = N_("({word} was written beside the tiles: they score more as read above.)")


def reading_line(_: Gettext, tiles: Mapping[str, Any]) -> str:
    """`  🀄 Tiles: [777p] 123m 456m 789s 55s` under a winner's line, with how many readings the
    tiles have and, when a pattern word named a lower one, that it was not taken."""
    reading = f"<code>{escape(str(tiles['reading']))}</code>"
    n = int(tiles.get("readings", 1))
    line = "  🀄 " + (
        _(BEST_READING, reading=reading, n=n) if n > 1 else _(ONE_READING, reading=reading)
    )
    written = tiles.get("written")
    if written:
        line += " " + _(WRITTEN, word=_(labels.PATTERN[_label(str(written))]))
    return line


def history_lines(_: Gettext, view: HandView) -> list[str]:
    """A hand's tiles in /history, one line per winner who gave them: `  🀄 老王: 111m 222m …`."""
    return [
        f"  🀄 {escape(name)}: <code>{escape(reading)}</code>" for name, reading in hands_of(view)
    ]


def hands_of(view: HandView) -> list[tuple[str, str]]:
    """(winner, reading scored) of each win of a hand given as tiles (the Mini App draws them)."""
    names = view.data.get("names", ())
    seats = view.data.get("seats", ())
    out = []
    for win in view.data.get("wins", ()):
        tiles = win.get("tiles")
        if tiles:
            winner = win.get("winner")
            name = names[seats.index(winner)] if winner in seats else "?"
            out.append((str(name), str(tiles["reading"])))
    return out


def _label(word: str) -> str:
    """A pattern word's label key: `pph` → `pengpenghu`, `qidui` → `qidui0`."""
    return {"pph": "pengpenghu", "qidui": "qidui0"}.get(word, word)
