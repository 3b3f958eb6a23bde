"""Whether a player's name, written where a command expects a player, reads back as that name:
for the Mini App, which writes its forms as the command a player would type (`bot.miniapp.forms`)
and names the players where that reads the same, else gives their seat numbers."""

from __future__ import annotations

from bot.commands import free, mahjong
from bot.commands.reader import ParseError, player_ref
from bot.commands.words import NOT_A_PLAYER
from scoring.tiles_notation import looks_like_tiles
from service.requests import RefKind


def reads_back(name: str) -> bool:
    """`name` as a player in /hu, /gang, /r, /s or /pay is that name: not a seat, me or a
    @username, not a word /hu takes for a keyword or for tiles, not cut into keywords, not
    read as a score."""
    try:
        ref = player_ref(name, "")
    except ParseError:
        return False
    return (
        ref.kind is RefKind.NAME
        and ref.value == name
        and name.lower() not in NOT_A_PLAYER
        and not looks_like_tiles(name)
        and mahjong.read_whole(name)
        and free.reads_as_a_player(name)
    )
