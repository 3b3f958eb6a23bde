"""Short, versioned callback data (≤ 64 bytes). Every press is checked again by the service."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from scoring.games import Game
from service.requests import Join, NewTable, PlayerRef, RefKind, Request, Seats, Sub

VERSION = "v1"
MAX_ID = 2**31 - 1  # database ids are 32-bit integers


def undo_data(event_id: int) -> str:
    return f"{VERSION}:undo:{event_id}"


def again_data(event_id: int) -> str:
    """[Record again]: the content of record `event_id` once more (the two-minute rule)."""
    return f"{VERSION}:again:{event_id}"


def near_data(near_id: int, replace: bool) -> str:
    """[Replace #N] (`r`) or [Record both] (`b`) under a near repeat's question."""
    return f"{VERSION}:near:{near_id}.{'r' if replace else 'b'}"


def near_answer(arg: str) -> tuple[int, bool] | None:
    """The kept near repeat and whether it replaces the record, of a `near_data` button."""
    near, _, how = arg.partition(".")
    return (int(near), how == "r") if _id(near) and how in ("r", "b") else None


def reset_data(season_id: int) -> str:
    return f"{VERSION}:reset:{season_id}"


def new_data(table_id: int, req: NewTable) -> str:
    """Confirm /new over table `table_id`: the game and its options ride along."""
    flags = "".join("-" if v is None else str(int(v)) for v in (req.sisuang, req.zerosum))
    data = f"{VERSION}:new:{table_id}:{req.game.value}:{int(req.marathon)}{flags}"
    return f"{data}:{req.name}" if req.name else data


def fits(data: str) -> bool:
    """Telegram takes at most 64 bytes of callback data (a long free game name may not fit)."""
    return len(data.encode()) <= 64


def new_request(arg: str) -> NewTable | None:
    """The confirmed /new of a `new_data` button; None if malformed."""
    parts = arg.split(":", 3)
    if len(parts) not in (3, 4) or not _id(parts[0]) or parts[1] not in set(Game):
        return None
    name = parts[3] if len(parts) == 4 else ""
    if name and Game(parts[1]) is not Game.FREE:
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
        name=name,
    )


def claim_data(player_id: int, user_id: int) -> str:
    """ "I am this guest", for the one member who may press it."""
    return f"{VERSION}:me:{player_id}.{user_id}"


_TOKEN = {
    RefKind.ID: "i",
    RefKind.NAME: "n",
    RefKind.NEW: "g",
    RefKind.ME: "m",
    RefKind.USERNAME: "u",
    RefKind.SEAT: "s",
}
_KIND = {token: kind for kind, token in _TOKEN.items()}


def name_data(user_id: int, request: Request) -> str | None:
    """An answer to "did you mean …?": the command again (`/seats`, `/sub`, `/join <guest>`)
    with the player meant, for the member who asked; None when it does not fit."""
    if isinstance(request, Seats):
        kind, refs = "s", request.names
    elif isinstance(request, Sub):
        kind, refs = "b", (request.out, request.into)
    elif isinstance(request, Join) and request.player_id is not None:
        kind, refs = "j", (PlayerRef(RefKind.ID, str(request.player_id)),)
    elif isinstance(request, Join) and request.guest is not None:
        kind = "j"
        refs = (PlayerRef(RefKind.NEW if request.new else RefKind.NAME, request.guest),)
    else:
        return None
    if any("/" in ref.value for ref in refs):
        return None
    tokens = "/".join(_TOKEN[ref.kind] + ref.value for ref in refs)
    data = f"{VERSION}:nm:{user_id}:{kind}:{tokens}"
    return data if fits(data) else None


def name_request(arg: str) -> tuple[int, Request] | None:
    """The member and the command of a `name_data` button; None if malformed."""
    parts = arg.split(":", 2)
    if len(parts) != 3 or not (parts[0].isascii() and parts[0].isdigit()):
        return None
    refs = []
    for token in parts[2].split("/"):
        kind = _KIND.get(token[:1])
        value = token[1:]
        if kind is None or (kind in (RefKind.ID, RefKind.SEAT) and not _id(value)):
            return None
        if kind in (RefKind.NAME, RefKind.NEW, RefKind.USERNAME) and not value:
            return None
        refs.append(PlayerRef(kind, value))
    request: Request
    if parts[1] == "s" and 2 <= len(refs) <= 10:
        request = Seats(tuple(refs))
    elif parts[1] == "b" and len(refs) == 2:
        request = Sub(refs[0], refs[1])
    elif parts[1] == "j" and len(refs) == 1 and refs[0].kind is RefKind.ID:
        request = Join(player_id=int(refs[0].value))
    elif parts[1] == "j" and len(refs) == 1 and refs[0].kind in (RefKind.NAME, RefKind.NEW):
        request = Join(refs[0].value, new=refs[0].kind is RefKind.NEW)
    else:
        return None
    return int(parts[0]), request


def card_data() -> str:
    """The night's card (offered under /settle)."""
    return f"{VERSION}:card"


def mine_data() -> str:
    """[我的账] under /standings: the presser's own account, for them alone."""
    return f"{VERSION}:mine"


def cancel_data(what: str = "") -> str:
    """[No] / [Cancel]: the buttons go; `what` = "r": a repeat's question, which then says
    that nothing was recorded."""
    return f"{VERSION}:cancel:{what}" if what else f"{VERSION}:cancel"


def _id(text: str) -> bool:
    return text.isascii() and text.isdigit() and int(text) <= MAX_ID


@dataclass(frozen=True)
class Press:
    action: str  # undo, again, near, reset, new, me, nm ("did you mean …?"), cancel, card,
    # mine, w (/hu wizard), f (/s buttons)
    arg: str


def parse_press(data: str | None) -> Press | None:
    """Decode callback data; None for anything malformed, stale-versioned or oversized."""
    if not data or not fits(data):
        return None
    parts = data.split(":", 2)
    if len(parts) < 2 or parts[0] != VERSION:
        return None
    action, arg = parts[1], parts[2] if len(parts) == 3 else ""
    if action in ("undo", "reset", "again"):
        return Press(action, arg) if _id(arg) else None
    if action == "new":
        return Press(action, arg) if new_request(arg) is not None else None
    if action == "near":
        return Press(action, arg) if near_answer(arg) is not None else None
    if action == "me":
        ids = arg.split(".")  # a player (a record's id) and a Telegram user (0: anyone)
        user = ids[-1]
        valid = len(ids) == 2 and _id(ids[0]) and user.isascii() and user.isdigit()
        valid = valid and len(user) <= 19
        return Press(action, arg) if valid else None
    if action == "nm":
        return Press(action, arg) if name_request(arg) is not None else None
    if action == "cancel":
        return Press(action, arg) if arg in ("", "r") else None
    if action in ("card", "mine"):
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
