"""Who a guest is: a guest becomes a person only when that person asks (the "I am" button of
`/join <guest>`) or an admin links them (`/link`); an admin can undo either (`/unlink`)."""

from __future__ import annotations

import dataclasses

from service import names
from service.admin import require_admin
from service.errors import N_, ServiceError
from service.replies import Claimable, Claimed, TableView, Unlinked
from service.requests import Claim, Unlink
from service.unit import Tx
from storage.gateway import chat_move, players, tables
from storage.models import PlayerRow


def offer_claim(tx: Tx, joined: TableView, guest: PlayerRow | None) -> TableView:
    """Offer "I am <guest>" to a member with no records here: after `/join <guest>`, or after
    `/join` when a guest who looks like the member played before. Only a guest who played."""
    user_id = tx.ctx.actor.user_id
    if guest is None or user_id is None or guest.user_id is not None or guest.username:
        return joined
    mine = players.player_of_user(tx.db, tx.chat.id, user_id)
    if mine is not None and (mine.id == guest.id or players.has_played(tx.db, mine.id)):
        return joined
    if not players.has_played(tx.db, guest.id):
        return joined
    return dataclasses.replace(joined, claim=Claimable(guest.id, user_id, guest.name))


def guest_like(tx: Tx, member: PlayerRow) -> PlayerRow | None:
    """An unlinked guest whose name looks like the member's (as Telegram gives it: a member
    is `小李 (2)` beside a guest 小李), if there is one."""
    want = names.skeleton(names.clean(tx.ctx.actor.name) or member.name)
    for player in players.players_of_chat(tx.db, tx.chat.id):
        if player.user_id is None and not player.username and names.skeleton(player.name) == want:
            return player
    return None


def claim(tx: Tx, req: Claim) -> Claimed:
    """The sender becomes the guest: its name, seats and balances are theirs from now on."""
    user_id = tx.ctx.actor.user_id
    if user_id is None:
        raise ServiceError(N_("Only a member writing as themselves can say who they are."))
    guest = players.player_in_chat(tx.db, tx.chat.id, req.player_id)
    if guest is None or guest.user_id is not None or guest.username is not None:
        raise ServiceError(N_("That guest is linked to someone already."))
    mine = players.player_of_user(tx.db, tx.chat.id, user_id)
    if mine is not None and players.has_played(tx.db, mine.id):
        raise ServiceError(
            N_("You already play here as {name}; an admin can /unlink that first."),
            name=mine.name,
        )
    if mine is not None:  # sat down a moment ago, no records: the guest takes its seats
        _give_seats(tx, mine.id, guest.id)
        if any(mine.id in t.seats for t in tables.open_tables(tx.db, tx.chat.id)):
            mine.user_id = mine.username = None  # seated beside the guest: a guest of its own
            players.save_player(tx.db, mine)
        else:  # nothing of it is left: it goes (no second player of the member's name)
            chat_move.merge_player(tx.db, tx.chat.id, mine.id, guest.id)
    guest.user_id, guest.username = user_id, tx.ctx.actor.username
    players.save_player(tx.db, guest)
    return Claimed(name=guest.name, member=names.clean(tx.ctx.actor.name) or guest.name)


def _give_seats(tx: Tx, old: int, new: int) -> None:
    """At the chat's open tables, `old`'s seat goes to `new` (unless `new` sits there too)."""
    for table in tables.open_tables(tx.db, tx.chat.id):
        if old in table.seats and new not in table.seats:
            table.seats = [new if pid == old else pid for pid in table.seats]
            tables.set_seats(tx.db, table)


def unlink(tx: Tx, req: Unlink) -> Unlinked:
    """(Admins) a player is a guest again: their records stay, the account is nobody's."""
    require_admin(tx)
    want = names.clean(req.player).casefold()
    found = [
        p
        for p in players.players_of_chat(tx.db, tx.chat.id)
        if p.name.casefold() == want and (p.user_id is not None or p.username is not None)
    ]
    if len(found) != 1:
        raise ServiceError(
            N_("No player named '{name}' is linked to an account here."), name=req.player
        )
    player = found[0]
    player.user_id = player.username = None
    players.save_player(tx.db, player)
    return Unlinked(name=player.name)
