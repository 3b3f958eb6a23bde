"""Short, versioned callback data (≤ 64 bytes). Every press is checked again by the service."""

from __future__ import annotations

from dataclasses import dataclass

from scoring.games import Game
from service.requests import NewTable

VERSION = "v1"
MAX_ID = 2**31 - 1  # database ids are 32-bit integers


def undo_data(event_id: int) -> str:
    return f"{VERSION}:undo:{event_id}"


def reset_data(season_id: int) -> str:
    return f"{VERSION}:reset:{season_id}"


def new_data(table_id: int, req: NewTable) -> str:
    """Confirm /new over table `table_id`: the game and its options ride along."""
    flags = "".join("-" if v is None else str(int(v)) for v in (req.sisuang, req.zerosum))
    return f"{VERSION}:new:{table_id}:{req.game.value}:{int(req.marathon)}{flags}"


def new_request(arg: str) -> NewTable | None:
    """The confirmed /new of a `new_data` button; None if malformed."""
    parts = arg.split(":")
    if len(parts) != 3 or not _id(parts[0]) or parts[1] not in set(Game):
        return None
    flags = parts[2]
    if len(flags) != 3 or flags[0] not in "01" or any(f not in "01-" for f in flags[1:]):
        return None

    def flag(f: str) -> bool | None:
        return None if f == "-" else f == "1"

    return NewTable(
        Game(parts[1]),
        marathon=flags[0] == "1",
        sisuang=flag(flags[1]),
        zerosum=flag(flags[2]),
        confirm=True,
        replaces=int(parts[0]),
    )


def cancel_data() -> str:
    return f"{VERSION}:cancel"


def _id(text: str) -> bool:
    return text.isascii() and text.isdigit() and int(text) <= MAX_ID


@dataclass(frozen=True)
class Press:
    action: str  # "undo" | "reset" | "new" | "cancel" | "wiz"
    arg: str


def parse_press(data: str | None) -> Press | None:
    """Decode callback data; None for anything malformed, stale-versioned or oversized."""
    if not data or len(data.encode()) > 64:
        return None
    parts = data.split(":", 2)
    if len(parts) < 2 or parts[0] != VERSION:
        return None
    action, arg = parts[1], parts[2] if len(parts) == 3 else ""
    if action in ("undo", "reset"):
        return Press(action, arg) if _id(arg) else None
    if action == "new":
        return Press(action, arg) if new_request(arg) is not None else None
    if action == "cancel":
        return Press(action, "") if arg == "" else None
    if action == "w":
        return Press(action, arg)  # the wizard decodes and checks its own state
    return None
