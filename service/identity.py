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
from storage.gateway import players
from storage.rows import PlayerRow


def offer_claim(tx: Tx, joined: TableView, guest: PlayerRow) -> TableView:
    """`/join <guest>` by a member who is nobody here yet: offer "I am <guest>"."""
    user_id = tx.ctx.actor.user_id
    if user_id is None or guest.user_id is not None or guest.username is not None:
        return joined
    if players.player_of_user(tx.db, tx.chat.id, user_id) is not None:
        return joined
    return dataclasses.replace(joined, claim=Claimable(guest.id, user_id))


def claim(tx: Tx, req: Claim) -> Claimed:
    """The sender becomes the guest: its name, seats and balances are theirs from now on."""
    user_id = tx.ctx.actor.user_id
    if user_id is None:
        raise ServiceError(N_("Only a member writing as themselves can say who they are."))
    mine = players.player_of_user(tx.db, tx.chat.id, user_id)
    if mine is not None:
        raise ServiceError(
            N_("You already play here as {name}; an admin can /unlink that first."),
            name=mine.name,
        )
    guest = players.player_in_chat(tx.db, tx.chat.id, req.player_id)
    if guest is None or guest.user_id is not None or guest.username is not None:
        raise ServiceError(N_("That guest is linked to someone already."))
    guest.user_id, guest.username = user_id, tx.ctx.actor.username
    players.save_player(tx.db, guest)
    return Claimed(name=guest.name)


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
