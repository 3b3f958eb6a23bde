"""Who is who: resolving `1`, `老王`, `@user` and `me` against a table's seats."""

from __future__ import annotations

from collections.abc import Sequence

from service.errors import N_, ServiceError
from service.requests import PlayerRef, RefKind
from service.unit import Tx
from storage.gateway import players
from storage.rows import PlayerRow, TableRow

MAX_NAME = 32


def display(ref: PlayerRef) -> str:
    return {RefKind.ME: "me", RefKind.USERNAME: "@" + ref.value}.get(ref.kind, ref.value)


def sender(tx: Tx) -> PlayerRow:
    """The sender's player in this chat, created on first sight; name kept current. A guest
    linked to the sender's @username, or else the one guest of the same name (seated by
    `/seats` before the person spoke), becomes the sender's player."""
    actor = tx.ctx.actor
    if actor.user_id is None:
        raise ServiceError(N_("Anonymous admins cannot take a seat; name the player instead."))
    name, username = actor.name[:MAX_NAME], actor.username
    player = players.player_of_user(tx.db, tx.chat.id, actor.user_id)
    if player is None:
        guests = players.guests_where(tx.db, tx.chat.id, username=username or "", name=name)
        linked = [g for g in guests if username and (g.username or "").lower() == username.lower()]
        named = [g for g in guests if g.name.lower() == name.lower()]
        player = linked[0] if linked else named[0] if len(named) == 1 else None
    if player is None:
        return players.add_player(tx.db, tx.chat.id, name, actor.user_id, username)
    before = (player.name, player.user_id, player.username)
    if player.user_id is None:
        player.user_id, player.username = actor.user_id, username  # a linked guest keeps its name
    else:
        player.name, player.username = name, username
    if (player.name, player.user_id, player.username) != before:
        players.save_player(tx.db, player)
    return player


def seated(tx: Tx, table: TableRow) -> list[PlayerRow]:
    found = players.players_by_id(tx.db, table.seats)
    return [found[pid] for pid in table.seats]


def seat_of(
    tx: Tx, table: TableRow, ref: PlayerRef, players: Sequence[PlayerRow] | None = None
) -> int:
    """The seat index (0-based) of a reference, or a friendly error listing the seated players."""
    players = list(players) if players is not None else seated(tx, table)
    matches = _match(tx, players, ref)
    if len(matches) == 1:
        return matches[0]
    listing = ", ".join(f"{i + 1} {p.name}" for i, p in enumerate(players)) or "-"
    if matches:
        raise ServiceError(
            N_("'{ref}' could mean several players. Seated: {seated}"),
            ref=display(ref),
            seated=listing,
        )
    raise ServiceError(
        N_("No seated player '{ref}'. Seated: {seated}"), ref=display(ref), seated=listing
    )


def _match(tx: Tx, players: Sequence[PlayerRow], ref: PlayerRef) -> list[int]:
    if ref.kind is RefKind.SEAT:
        n = int(ref.value) - 1
        return [n] if 0 <= n < len(players) else []
    if ref.kind is RefKind.ME:
        uid = tx.ctx.actor.user_id
        if uid is not None and not any(p.user_id == uid for p in players):
            me = sender(tx)  # a guest seated under the sender's name becomes the sender
            return [i for i, p in enumerate(players) if p.id == me.id]
        return [i for i, p in enumerate(players) if uid is not None and p.user_id == uid]
    if ref.kind is RefKind.USERNAME:
        want = ref.value.casefold()
        return [i for i, p in enumerate(players) if (p.username or "").casefold() == want]
    want = ref.value.casefold()
    exact = [i for i, p in enumerate(players) if p.name.casefold() == want]
    if exact:
        return exact
    return [i for i, p in enumerate(players) if p.name.casefold().startswith(want)]


def find_or_add(tx: Tx, ref: PlayerRef) -> PlayerRow:
    """A chat member or guest by reference (for seating); unknown names become guests."""
    if ref.kind is RefKind.ME:
        return sender(tx)
    if ref.kind is RefKind.SEAT:
        raise ServiceError(
            N_("Give names, not seat numbers: '{ref}'."), usage="/seats A B C D", ref=ref.value
        )
    known = players.players_of_chat(tx.db, tx.chat.id)
    if ref.kind is RefKind.USERNAME:
        want = ref.value.casefold()
        for p in known:
            if (p.username or "").casefold() == want:
                return p
        return players.add_player(tx.db, tx.chat.id, "@" + ref.value)
    want = ref.value.casefold()
    for p in known:
        if p.name.casefold() == want:
            return p
    return players.add_player(tx.db, tx.chat.id, ref.value[:MAX_NAME])
