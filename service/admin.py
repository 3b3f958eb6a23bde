"""Admin use cases: /reset (archive the season) and /set (chat settings)."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from scoring.games import Game
from service.errors import N_, Forbidden
from service.replies import Info, ResetAsk, ResetDone, SettingChanged
from service.requests import Reset, SetOption, Setting
from service.unit import Tx
from storage import repository as repo
from storage.models import Chat, Season, utcnow
from storage.rows import SeasonRow

K510_GAMES = (Game.K510, Game.K510_3)


def require_admin(tx: Tx) -> None:
    if not tx.ctx.is_admin:
        raise Forbidden(N_("Only group admins can do that."))


def reset(tx: Tx, req: Reset) -> ResetAsk | ResetDone | Info:
    require_admin(tx)
    if req.season_id is not None and req.season_id != tx.season.id:
        return Info(N_("That season was already archived."))
    if not req.confirm:
        return ResetAsk(season=tx.season.number, season_id=tx.season.id)
    old = tx.session.get_one(Season, tx.season.id)
    old.archived_at = utcnow()
    tx.session.add(old)
    tx.session.flush()
    new = Season(chat_id=tx.chat.id, number=old.number + 1)
    tx.session.add(new)
    tx.session.flush()
    for table in repo.open_tables(tx.session, tx.chat.id):
        table.season_id = new.id or 0  # seats and dealer stay; the ledger starts afresh
        tx.session.add(table)
    tx.season = SeasonRow(new.id or 0, new.number)
    return ResetDone(archived=old.number, new=new.number)


def set_option(tx: Tx, req: SetOption) -> SettingChanged:
    require_admin(tx)
    chat = tx.session.get_one(Chat, tx.chat.id)
    if req.key is Setting.STAKE:
        chat.stake = Fraction(Decimal(req.value)) or None
    elif req.key is Setting.LANG:
        chat.lang = req.value
    else:
        on = req.value == "on"
        games = (Game.MAHJONG,) if req.key is Setting.SISUANG else K510_GAMES
        setattr(chat, req.key.value, on)
        for table in repo.open_tables(tx.session, chat.id):
            if Game(table.game) in games:
                setattr(table, req.key.value, on)
                tx.session.add(table)
    tx.session.add(chat)
    tx.chat.lang = chat.lang  # the reply speaks the new language
    return SettingChanged(key=req.key.value, value=req.value)
