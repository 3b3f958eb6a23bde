"""Short, versioned callback data (≤ 64 bytes). Every press is checked again by the service."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

VERSION = "v1"
MAX_ID = 2**31 - 1  # database ids are 32-bit integers


def undo_data(event_id: int) -> str:
    return f"{VERSION}:undo:{event_id}"


def reset_data(season_id: int) -> str:
    return f"{VERSION}:reset:{season_id}"


def claim_data(player_id: int, user_id: int) -> str:
    """ "I am this guest", for the one member who may press it."""
    return f"{VERSION}:me:{player_id}.{user_id}"


def cancel_data() -> str:
    return f"{VERSION}:cancel"


@dataclass(frozen=True)
class Press:
    action: str  # "undo" | "reset" | "me" | "cancel" | "w" (/hu wizard) | "f" (/s buttons)
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
    if action == "me":
        ids = arg.split(".")
        valid = len(ids) == 2 and all(i.isascii() and i.isdigit() and len(i) <= 19 for i in ids)
        return Press(action, arg) if valid else None
    if action == "cancel":
        return Press(action, "") if arg == "" else None
    if action in ("w", "f"):
        return Press(action, arg)  # the /hu wizard and the /s buttons decode their own state
    return None


def press_key(chat_id: int, message_id: int, data: str) -> int:
    """The idempotency key of pressing one button of one message: recorded in place of the
    update id, so a double tap (two callback queries, two update ids) records once. Negative
    (63 bits of a hash), so it never meets a Telegram update id, which is positive."""
    digest = hashlib.blake2b(f"{chat_id}:{message_id}:{data}".encode(), digest_size=8).digest()
    return -(int.from_bytes(digest, "big") >> 1) - 1
