"""Who is who: resolving `1`, `老王`, `@user` and `me` against a table's seats."""

from __future__ import annotations

from collections.abc import Sequence

from service import names
from service.errors import N_, ServiceError
from service.requests import PlayerRef, RefKind
from service.unit import Tx
from storage.gateway import ledger as book
from storage.gateway import players
from storage.models import PlayerRow, TableRow


def display(ref: PlayerRef) -> str:
    """A reference as the member typed it (我 stays 我)."""
    if ref.kind is RefKind.ME:
        return ref.typed or "me"
    return "@" + ref.value if ref.kind is RefKind.USERNAME else ref.value


def sender(tx: Tx) -> PlayerRow:
    """The sender's player in this chat, created on first sight; name kept current. A guest
    linked to the sender's @username (`/link`, `/seats @user`) becomes the sender's player; a
    guest of the same name does not (only `/join <guest>`'s "I am" button or `/link` does)."""
    actor = tx.ctx.actor
    if actor.channel_id is not None:
        raise ServiceError(
            N_(
                "You are writing as the channel {channel}: a channel cannot take a seat. "
                "Write as yourself to sit down, or name the player:"
            ),
            usage="/join 小李",
            channel=actor.name,
        )
    if actor.user_id is None:
        raise ServiceError(N_("Anonymous admins cannot take a seat; name the player instead."))
    username = actor.username
    name = names.member_name(actor.name, username, actor.user_id)
    player = players.player_of_user(tx.db, tx.chat.id, actor.user_id)
    if player is None and username:
        linked = players.guests_where(tx.db, tx.chat.id, username=username)
        player = linked[0] if linked else None
    if player is None:
        name = _not_taken(tx, name, None)
        return players.add_player(tx.db, tx.chat.id, name, actor.user_id, username)
    before = (player.name, player.user_id, player.username)
    if player.user_id is None:  # a linked guest keeps its name, unless it was only "@user"
        player.user_id, player.username = actor.user_id, username
        if player.name.casefold() == f"@{username}".casefold():
            player.name = _not_taken(tx, name, player)
    else:  # a name given with /rename stays
        if not player.named and name != player.name:
            name = _not_taken(tx, name, player)
        player.name, player.username = player.name if player.named else name, username
    if (player.name, player.user_id, player.username) != before:
        players.save_player(tx.db, player)
    return player


def _not_taken(tx: Tx, name: str, me: PlayerRow | None) -> str:
    """A member's Telegram name, or `name (2)`… when another player of the chat has it: two
    players never share a name (the older keeps it); a name kept already stays as it is."""
    others = [
        p.name for p in players.players_of_chat(tx.db, tx.chat.id) if me is None or p.id != me.id
    ]
    kept = me is not None and me.name.startswith(name + " (")
    if kept and me is not None and me.name.casefold() not in {o.casefold() for o in others}:
        return me.name  # told apart the same way already
    return names.unused(name, others)


def require_distinct(seated: Sequence[PlayerRow]) -> None:
    """Refuse a table where two players' names look the same (`Alice` and `Аlice`)."""
    seen: dict[str, PlayerRow] = {}
    for player in seated:
        other = seen.setdefault(names.skeleton(player.name), player)
        if other.id != player.id:
            raise ServiceError(
                N_(
                    "'{name}' looks the same as '{other}' at this table: players need names "
                    "that tell them apart. Seat the guest under another name."
                ),
                name=player.name,
                other=other.name,
            )


FREE_SEAT = 0  # in `TableRow.seats`: a seat left by /leave, waiting for /join or /sub


def seated(tx: Tx, table: TableRow) -> list[PlayerRow]:
    """The players at the table in seat order (a free seat left out)."""
    found = players.players_by_id(tx.db, [pid for pid in table.seats if pid != FREE_SEAT])
    return [found[pid] for pid in table.seats if pid != FREE_SEAT]


def seated_with_balances(
    tx: Tx, table: TableRow, unit: str, hint: str | None = None
) -> book.Seated:
    """`seated`, their balances in `unit` this season (amount and par; None: none yet) and
    who of them had `hint`, read together: a hand's transfers add to them
    (`ledger.add_transfers`)."""
    return book.seated(tx.db, table.seats, tx.season.id, unit, hint)


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
    if ref.kind is RefKind.ME:  # the guest of the sender's name, else the first guest
        guests = [p.name for p in players if p.user_id is None]
        own = names.clean(tx.ctx.actor.name).casefold()
        example = next((g for g in guests if g.casefold() == own), guests[0] if guests else "小李")
        raise ServiceError(
            N_(
                "'{ref}': you are not seated at this table. Seated: {seated}. If one of them is"
                " you, claim that seat first."
            ),
            usage="/iam " + example,
            ref=display(ref),
            seated=listing,
        )
    raise ServiceError(
        N_("No seated player '{ref}'. Seated: {seated}"), ref=display(ref), seated=listing
    )


def _match(tx: Tx, players: Sequence[PlayerRow], ref: PlayerRef) -> list[int]:
    if ref.kind is RefKind.ID:
        return [i for i, p in enumerate(players) if str(p.id) == ref.value]
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
    want = names.clean(ref.value).casefold()
    exact = [i for i, p in enumerate(players) if p.name.casefold() == want]
    if exact:
        return exact
    alike = [i for i, p in enumerate(players) if names.skeleton(p.name) == names.skeleton(want)]
    if alike:
        return alike
    return [i for i, p in enumerate(players) if want and p.name.casefold().startswith(want)]


def find_or_add(tx: Tx, ref: PlayerRef) -> PlayerRow:
    """A chat member or guest by reference (for seating); unknown names become guests. An
    @username is the member with that username, else its own guest (one per username, reused,
    linked to the person when they first speak)."""
    if ref.kind is RefKind.ME:
        return sender(tx)
    if ref.kind is RefKind.SEAT:
        raise ServiceError(
            N_("Give names, not seat numbers: '{ref}'."), usage="/seats A B C D", ref=ref.value
        )
    known = players.players_of_chat(tx.db, tx.chat.id)
    if ref.kind is RefKind.USERNAME:
        want = ref.value.casefold()
        by_username = [p for p in known if (p.username or "").casefold() == want]
        members = [p for p in by_username if p.user_id is not None]
        if members or by_username:
            return (members or by_username)[0]
        return players.add_player(tx.db, tx.chat.id, "@" + ref.value, None, ref.value)
    name = guest_name(ref.value)
    for p in known:
        if p.name.casefold() == name.casefold():
            return p
    actor = tx.ctx.actor
    if actor.user_id is not None and names.clean(actor.name).casefold() == name.casefold():
        return sender(tx)  # the sender's own name, not taken by anyone: the sender
    return players.add_player(tx.db, tx.chat.id, name)


def guest_name(typed: str) -> str:
    """A guest's name as typed, cleaned; refused when nothing visible is left."""
    name = names.clean(typed)
    if not name:
        raise ServiceError(
            N_("That name has no visible letters. Give the guest a name people can read:"),
            usage="/join 小李",
        )
    return name
