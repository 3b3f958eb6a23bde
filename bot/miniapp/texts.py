"""The page's own words, translated by the bot's catalogs and sent with the data (the page has
no catalog of its own). Keys are what `static/app.js` asks for; `tiles`, the tile keyboard's
(`static/tiles.js`: `tileKeyboard({strings: data.strings.tiles, …})`)."""

from __future__ import annotations

from collections.abc import Iterable
from html import unescape

from bot.commands import labels
from bot.i18n import N_, translator
from bot.presentation.render_free import unit_title
from scoring.games import Unit

PAGE: dict[str, str] = {
    "standings": N_("Standings"),
    "history": N_("History"),
    "settle": N_("Settle up"),
    "seasons": N_("Seasons"),
    "table": N_("Table"),
    "record": N_("Record"),
    "season": N_("Season {n}"),
    "archived": N_("archived"),
    "nothing": N_("No hands recorded yet."),
    "no_table": N_("No table is open here. Open one in the chat with /new."),
    "all_players": N_("All players"),
    "more": N_("Show more"),
    "hand": N_("Mahjong hand"),
    "kong": N_("Kong"),
    "liuju": N_("流局 no winner"),
    "report": N_("510K hand"),
    "winner": N_("Winner"),
    "how": N_("How"),
    "from": N_("From whom"),
    "pattern": N_("Pattern"),
    "flags": N_("Flags"),
    "sealed": N_("封胡 sealed by"),
    "chain": N_("Chained kongs"),
    "add_winner": N_("Another winner on this discard"),
    "konger": N_("Who"),
    "kind": N_("Kind"),
    "table_points": N_("Table points"),
    "held": N_("Points in hand"),
    "out": N_("Went out, in order"),
    "clear": N_("Clear"),
    "save": N_("Record it"),
    "saving": N_("Recording…"),
    "saved": N_("Recorded and posted in the chat."),
    "refused": N_("Not possible:"),
    "pending_kongs": N_("Kongs of this hand"),
    "offline": N_("No connection. Try again."),
    "offline_live": N_("Offline: not following the table. Trying again…"),
    "sitting": N_("This sitting ({n} hand(s))"),
    "points": N_("Points"),
    "money": N_("Money"),
    "join": N_("Join at the table"),
    "join_hint": N_("Friends at the table scan this with their phone to open it."),
    "checking": N_("Checking…"),
    "preview": N_("The chat will show"),
    "result": N_("Recorded"),
    "undo": N_("Undo"),
    "again": N_("Record again"),
    "not_again": N_("No"),
    "by_tiles": N_("🀄 By tiles"),
    "round": N_("Round"),
    "transfer": N_("Transfer"),
    "sign": N_("plus or minus"),
    "balance": N_("Takes the balance"),
    "balance_hint": N_(
        "The player chosen here scores what makes the round sum to zero; a box left empty is 0."
    ),
    "payer": N_("Who pays"),
    "payee": N_("To whom"),
    "amount": N_("Amount"),
    "edit": N_("✎ Edit"),  # a hand in History: the Record form filled with it (issue 38)
    "editing": N_("✎ Correcting #{n}: the preview shows what changes"),
    "save_edit": N_("Save the correction"),
    "edit_saved": N_("Corrected and posted in the chat."),
    "versions": N_("✎ Every version"),
}


#: The tile keyboard's words (keys that static/tiles.js asks for).
TILES: dict[str, str] = {
    "hand": N_("Tiles"),
    "pung": N_("[ ] exposed pung"),
    "kong": N_("[ ] exposed kong"),
    "concealed": N_("( ) concealed kong"),
    "clear": N_("Clear"),
    "count": N_("{n} of {needed} tiles"),
    "pick": N_(
        "Tap the tiles of the hand, the winning tile too; tap a tile of the hand to take it out."
    ),
    "meld": N_("Now tap the tile of the group."),
    "full": N_("All four are in the hand."),
}


def strings(lang: str, units: Iterable[str] = ()) -> dict[str, object]:
    """The page's words and the game's names (ways to win, patterns, flags, kongs, units) in
    `lang`; `units` adds the titles of free games' units (`free:斗地主`: `Free points · 斗地主`)."""
    _ = translator(lang).gettext
    free = {unit: unescape(unit_title(_, unit)) for unit in units if Unit.of(unit) is Unit.FREE}
    return {
        "page": {key: _(msgid) for key, msgid in PAGE.items()},
        "win": {key: _(msgid) for key, msgid in labels.WIN.items()},
        "pattern": {key: _(msgid) for key, msgid in labels.PATTERN.items()},
        "flag": {key: _(msgid) for key, msgid in labels.FLAG.items()},
        "kong": {key: _(msgid) for key, msgid in labels.KONG.items()},
        "unit": {key: _(msgid) for key, msgid in labels.UNIT.items()} | free,
        "tiles": {key: _(msgid) for key, msgid in TILES.items()},
    }
