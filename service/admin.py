"""Admin use cases: /reset (archive the season) and /set (chat settings)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from scoring.games import Game
from service.errors import N_, Forbidden
from service.replies import Info, ResetAsk, ResetDone, SettingChanged, StakeSet
from service.requests import Reset, SetOption, Setting
from service.stakes import chat_stake_set
from service.unit import Tx
from storage.gateway import chats, tables
from storage.models import utcnow

K510_GAMES = (Game.K510, Game.K510_3)
ADMIN_ONLY = N_("Only group admins can do that.")


def require_admin(tx: Tx) -> None:
    if not tx.ctx.is_admin:
        raise Forbidden(ADMIN_ONLY)


def reset(tx: Tx, req: Reset) -> ResetAsk | ResetDone | Info:
    require_admin(tx)
    if req.season_id is not None and req.season_id != tx.season.id:
        return Info(N_("That season was already archived."))
    if not req.confirm:
        return ResetAsk(season=tx.season.number, season_id=tx.season.id)
    old = tx.season
    chats.archive_season(tx.db, old.id, utcnow())
    tx.season = chats.open_season(tx.db, tx.chat.id, old.number + 1)
    tables.move_open_tables(tx.db, tx.chat.id, tx.season.id)  # seats and dealer stay
    # Hands count per table and season: this topic's table says where its numbering restarts.
    table = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    last = chats.last_hand_no(tx.db, old.id, table.id) if table is not None else None
    return ResetDone(archived=old.number, new=tx.season.number, last_hand=last)


def set_option(tx: Tx, req: SetOption) -> SettingChanged | StakeSet:
    require_admin(tx)
    chat = tx.chat
    if req.key is Setting.STAKE:
        chat.stake = Fraction(Decimal(req.value)) or None
    elif req.key is Setting.LANG:
        chat.lang = req.value
    elif req.key is Setting.TZ:
        chat.tz = req.value
    elif req.key is Setting.RATING:
        chat.rating = req.value == "on"  # computed from the ledger when asked
    elif req.key is Setting.IDLE:
        chat.idle = int(req.value)  # `service.sittings` reads it at the next command
    else:
        on = req.value == "on"
        games = (Game.MAHJONG,) if req.key is Setting.SISUANG else K510_GAMES
        setattr(chat, req.key.value, on)
        for table in tables.open_tables(tx.db, chat.id):
            if Game(table.game) in games:
                setattr(table, req.key.value, on)
                tables.set_rules(tx.db, table)
    chats.save_settings(tx.db, chat)  # tx.chat: the reply speaks the new language
    if req.key is Setting.STAKE:  # the reply says which games keep a stake of their own
        return chat_stake_set(chat)
    return SettingChanged(key=req.key.value, value=req.value)
