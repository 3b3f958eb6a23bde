"""/set stake for one game (`/set stake mahjong 1`), and the reply to the chat's stake: how a
game's own stake and the chat's combine (`service.squaring.stake_of`)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from scoring.games import FREE_PREFIX
from service.errors import N_, Forbidden, ServiceError
from service.free_names import season_spelling
from service.replies import StakeSet
from service.requests import SetStake
from service.squaring import own_stake, own_stakes
from service.unit import Tx
from storage.gateway import chats
from storage.models import ChatRow

MAX_STAKES = 30  # games with a stake of their own, per chat


def set_stake(tx: Tx, req: SetStake) -> StakeSet:
    """A game's own stake (admins): set, 0 (the game plays for nothing), or removed."""
    if not tx.ctx.is_admin:
        raise Forbidden(N_("Only group admins can do that."))
    unit = req.unit
    if unit.startswith(FREE_PREFIX):
        unit = FREE_PREFIX + season_spelling(tx, unit.removeprefix(FREE_PREFIX))
    stakes = dict(tx.chat.stakes)
    known = own_stake(stakes, unit)
    if known is not None:
        del stakes[known[0]]
    if req.value is not None:
        if len(stakes) >= MAX_STAKES:
            raise ServiceError(
                N_(
                    "{n} games have a stake of their own already: take one off first "
                    "(/set stake <game> off)."
                ),
                n=len(stakes),
            )
        stakes[unit] = req.value
    tx.chat.stakes = stakes
    chats.save_settings(tx.db, tx.chat)
    own = None if req.value is None else Fraction(Decimal(req.value))
    return StakeSet(unit, own, tx.chat.stake, tuple(own_stakes(tx.chat)))


def chat_stake_set(chat: ChatRow) -> StakeSet:
    """The reply to `/set stake 0.5`: the chat's stake now, and the games that keep their own."""
    return StakeSet(None, chat.stake, chat.stake, tuple(own_stakes(chat)))
