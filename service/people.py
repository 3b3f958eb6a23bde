"""People, not seats: `/sub` (someone takes a seat), `/leave`, `/iam` (a member claims a
guest), `/rename` and `/merge` (two players who are one person)."""

from __future__ import annotations

from dataclasses import replace

from scoring.games import Game
from service import identity, names, seating
from service import players as who
from service.admin import require_admin
from service.errors import N_, Forbidden, ServiceError
from service.replies import Claimable, Claimed, Info, Merged, NameAsk, Renamed, TableView
from service.requests import Claim, IAm, Leave, Merge, PlayerRef, RefKind, Rename, Sub
from service.tables import _marathon_running, _open, pending_kongs, view
from service.unit import Tx
from storage.gateway import chat_move, players, tables
from storage.models import PlayerRow, TableRow

USAGE_SUB = "/sub A B"


def sub(tx: Tx, req: Sub) -> TableView | NameAsk:
    """B takes A's seat (or a free seat, given by its number). The dealer stays at the seat;
    A's kongs of the hand being played stay A's (`service.mahjong`); a 510K marathon's team
    keeps its progress (`service.k510`)."""
    table = _open(tx)
    at = _seat_of(tx, table, req.out)
    known = players.players_of_chat(tx.db, tx.chat.id)
    found = seating.resolve(tx, req.into, known)
    ask = seating.ask_first(
        (req.into,),
        (found,),
        known,
        table.seats,
        lambda refs: Sub(req.out, refs[0]),
        tx.ctx.actor.user_id,
    )
    if ask is not None:
        return ask
    if isinstance(found, PlayerRow) and found.id in table.seats:
        raise ServiceError(
            N_("{name} already sits at seat {seat}; /seats changes the whole seating."),
            usage=USAGE_SUB,
            name=found.name,
            seat=table.seats.index(found.id) + 1,
        )
    player = seating.made(tx, found)
    gone = table.seats[at]
    left = players.players_by_id(tx.db, [gone])[gone].name if gone != who.FREE_SEAT else ""
    table.seats = [*table.seats[:at], player.id, *table.seats[at + 1 :]]
    who.require_distinct(who.seated(tx, table))
    tables.set_seats(tx.db, table)
    shown = view(tx, table, "sub", player.name)
    carries = bool(left) and table.marathon and _marathon_running(tx, table)
    claims = (Claimable(player.id, 0, player.name),) if _unclaimed(player) else ()
    return replace(
        shown,
        replaced=left,
        new=seating.new_names((found,)),
        carries=carries,
        claims=claims,
    )


def _seat_of(tx: Tx, table: TableRow, ref: PlayerRef) -> int:
    """The seat (0-based) of the player leaving it; a seat number may name a free seat."""
    if ref.kind is RefKind.SEAT:
        n = int(ref.value) - 1
        if 0 <= n < len(table.seats):
            return n
        raise ServiceError(
            N_("There is no seat {n} at this table: it has {count}."),
            usage=USAGE_SUB,
            n=ref.value,
            count=len(table.seats),
        )
    people = who.seated(tx, table)
    return table.seats.index(people[who.seat_of(tx, table, ref, people)].id)


def leave(tx: Tx, req: Leave) -> TableView:
    """The sender's seat becomes free: nothing is recorded until `/join` or `/sub` fills it (a
    free table just has one player fewer)."""
    table = _open(tx)
    me = _sender_seated(tx, table)
    involved = {
        pid for kong in pending_kongs(tx, table) for pid in (kong["konger"], kong["source"])
    }
    if me.id in involved:
        raise ServiceError(
            N_(
                "You made or paid a kong in the hand being played: finish the hand first"
                " (/hu or /liuju), or let someone take your seat:"
            ),
            usage=f"/sub {me.name} {_stand_in(tx, table, me)}",
        )
    at = table.seats.index(me.id)
    if Game(table.game) is Game.FREE:
        table.seats = [pid for pid in table.seats if pid != me.id]
    else:
        table.seats = [*table.seats[:at], who.FREE_SEAT, *table.seats[at + 1 :]]
    tables.set_seats(tx.db, table)
    return view(tx, table, "left", me.name)


#: Example names for a newcomer in a refusal's example, the first that names nobody here.
EXAMPLE_NAMES = ("小周", "小李", "阿张", "老陈", "Sam", "Alex")


def _stand_in(tx: Tx, table: TableRow, me: PlayerRow) -> str:
    """A name for who takes `me`'s seat in an example: a player of the chat who does not sit
    here, else a name nobody has (never `me`'s own: "/sub 小李 小李" helps nobody)."""
    known = players.players_of_chat(tx.db, tx.chat.id)
    away = [p.name for p in known if p.id not in table.seats and p.id != me.id]
    if away:
        return away[-1]
    taken = {p.name.casefold() for p in known}
    return next((n for n in EXAMPLE_NAMES if n.casefold() not in taken), "Sam")


def _sender_seated(tx: Tx, table: TableRow) -> PlayerRow:
    user_id = tx.ctx.actor.user_id
    mine = players.player_of_user(tx.db, tx.chat.id, user_id) if user_id is not None else None
    if mine is None or mine.id not in table.seats:
        raise ServiceError(
            N_("You do not sit at this table. If one of the seated guests is you, say so:"),
            usage=f"/iam {_guest_for(tx, table)}",
        )
    return mine


def _guest_for(tx: Tx, table: TableRow) -> str:
    """The seated guest nobody has claimed whom the sender most likely is (their Telegram
    name's, else the first one), for /iam's example; "小李" where there is none."""
    seated = players.players_by_id(tx.db, [p for p in table.seats if p != who.FREE_SEAT])
    guests = [seated[p] for p in table.seats if p in seated and _unclaimed(seated[p])]
    mine = names.clean(tx.ctx.actor.name).casefold()
    same = [g for g in guests if g.name.casefold() == mine]
    return (same or guests)[0].name if guests else "小李"


def _unclaimed(player: PlayerRow) -> bool:
    return player.user_id is None and player.username is None


def iam(tx: Tx, req: IAm) -> Claimed | Info:
    """The sender claims a guest nobody is linked to: from now on it is the sender's player."""
    user_id = tx.ctx.actor.user_id
    if user_id is None:
        raise ServiceError(N_("Only a member writing as themselves can say who they are."))
    mine = players.player_of_user(tx.db, tx.chat.id, user_id)
    same = mine is not None and mine.name.casefold() == names.clean(req.name).casefold()
    if mine is not None and same and not _guest_named(tx, req.name, mine.id):
        return Info(N_("You are {name} already."), {"name": mine.name})
    guest = _named(tx, req.name, "/iam 小李", skip=user_id)
    handle = (tx.ctx.actor.username or "").casefold()
    if guest.user_id is None and handle and (guest.username or "").casefold() == handle:
        who.sender(tx)  # linked to the sender's @username by /link: theirs on first sight
        return Claimed(name=guest.name, member=names.clean(tx.ctx.actor.name) or guest.name)
    if guest.user_id is not None or guest.username is not None:
        raise ServiceError(
            N_(
                "{name} is already linked to someone else. If that is wrong, an admin can"
                " /unlink {name} and /link it again."
            ),
            name=guest.name,
        )
    return identity.claim(tx, Claim(guest.id))


def _guest_named(tx: Tx, typed: str, other_than: int) -> bool:
    """Whether another player of the chat has that name (a guest the member may mean)."""
    want = names.clean(typed).casefold()
    known = players.players_of_chat(tx.db, tx.chat.id)
    return any(p.id != other_than and p.name.casefold() == want for p in known)


def _named(tx: Tx, typed: str, usage: str, skip: int | None = None) -> PlayerRow:
    """The chat's player of that name (case ignored), or a friendly refusal naming them;
    `skip`: a user whose own player is not meant (/iam: the guest of the member's name)."""
    want = names.clean(typed).casefold()
    known = [
        p for p in players.players_of_chat(tx.db, tx.chat.id) if p.user_id != skip or skip is None
    ]
    found = [p for p in known if p.name.casefold() == want]
    if not found:
        found = [p for p in known if names.skeleton(p.name) == names.skeleton(want)]
    if len(found) == 1:
        return found[0]
    listing = ", ".join(p.name for p in known) or "-"
    raise ServiceError(
        N_("No player named '{name}' here. Players of this chat: {players}"),
        usage=usage,
        name=names.visible(typed),
        players=listing,
    )


def _player(tx: Tx, ref: PlayerRef, usage: str) -> PlayerRow:
    """A player of the chat by reference: a name (seated or not), a seat, @user or me."""
    if ref.kind is RefKind.NAME:
        return _named(tx, ref.value, usage)
    if ref.kind is RefKind.ME:
        return who.sender(tx)
    table = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if table is None:
        raise ServiceError(N_("No table is open here: name the player."), usage=usage)
    people = who.seated(tx, table)
    return people[who.seat_of(tx, table, ref, people)]


def rename(tx: Tx, req: Rename) -> Renamed:
    """A player is called by a new name: the same player row, so the ledger follows."""
    player = _player(tx, req.player, "/rename A B")
    own = tx.ctx.actor.user_id is not None and player.user_id == tx.ctx.actor.user_id
    if not own and not tx.ctx.is_admin:
        raise Forbidden(N_("Only group admins, or the player themself, can rename a player."))
    name = who.guest_name(req.name)
    for other in players.players_of_chat(tx.db, tx.chat.id):
        if other.id != player.id and names.skeleton(other.name) == names.skeleton(name):
            raise ServiceError(
                N_(
                    "'{name}' is another player's name here. If they are the same person, an"
                    " admin merges them:"
                ),
                usage=f"/merge {player.name} {other.name}",
                name=other.name,
            )
    old, player.name, player.named = player.name, name, True
    players.save_player(tx.db, player)
    return Renamed(old=old, new=name)


def merge(tx: Tx, req: Merge) -> Merged:
    """(Admins) A and B are one person: A's records become B's and A is gone. Refused when A
    and B both took part in one record, or both sit at a table: one person cannot."""
    require_admin(tx)
    gone = _player(tx, req.gone, "/merge A B")
    kept = _player(tx, req.kept, "/merge A B")
    if gone.id == kept.id:
        raise ServiceError(N_("That is one player already."), usage="/merge A B")
    if None not in (gone.user_id, kept.user_id) or (gone.username and kept.username):
        raise ServiceError(
            N_("{a} and {b} are two Telegram accounts: they cannot be one person."),
            a=gone.name,
            b=kept.name,
        )
    records = chat_move.players_of_records(tx.db, tx.chat.id)
    if any(gone.id in named and kept.id in named for named in records):
        raise ServiceError(
            N_(
                "{a} and {b} took part in the same record (a hand, a round or a transfer), so"
                " they are two people: nothing was merged."
            ),
            a=gone.name,
            b=kept.name,
        )
    for table in tables.open_tables(tx.db, tx.chat.id):
        if gone.id in table.seats and kept.id in table.seats:
            raise ServiceError(
                N_("{a} and {b} sit at the same table: one person cannot. Nothing was merged."),
                a=gone.name,
                b=kept.name,
            )
    moved = sum(1 for named in records if gone.id in named)
    user_id, username = gone.user_id, gone.username
    chat_move.merge_player(tx.db, tx.chat.id, gone.id, kept.id)
    if kept.user_id is None and user_id is not None:  # the account follows the person
        kept.user_id, kept.username = user_id, username
    elif kept.username is None and username is not None:
        kept.username = username
    players.save_player(tx.db, kept)
    return Merged(gone=gone.name, kept=kept.name, records=moved)
