"""Short, versioned callback data (≤ 64 bytes). Every press is checked again by the service."""

from __future__ import annotations

from dataclasses import dataclass

VERSION = "v1"
MAX_ID = 2**31 - 1  # database ids are 32-bit integers


def undo_data(event_id: int) -> str:
    return f"{VERSION}:undo:{event_id}"


def reset_data(season_id: int) -> str:
    return f"{VERSION}:reset:{season_id}"


def cancel_data() -> str:
    return f"{VERSION}:cancel"


@dataclass(frozen=True)
class Press:
    action: str  # "undo" | "reset" | "cancel" | "w" (/hu wizard) | "f" (/s buttons)
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
        return (
            Press(action, arg) if arg.isascii() and arg.isdigit() and int(arg) <= MAX_ID else None
        )
    if action == "cancel":
        return Press(action, "") if arg == "" else None
    if action in ("w", "f"):
        return Press(action, arg)  # the /hu wizard and the /s buttons decode their own state
    return None
