"""The Mini App's live mark: one cheap statement whose row changes whenever a chat's pages would
show something new (a record or an undo, a season, the open table, a setting, a new player).
Every part is an index lookup: (chat_id, seq) for the last event, chat_id for seasons and
players, the open table's unique index, the chat's primary key."""

from __future__ import annotations

import hashlib

from sqlalchemy import and_, bindparam, func, select
from sqlalchemy.engine import Connection
from sqlalchemy.sql.expression import BindParameter

from storage.models import chat, event, game_table, player, season

_CHAT: BindParameter[int] = bindparam("chat_id")
_LAST_SEQ = select(func.max(event.c.seq)).where(event.c.chat_id == _CHAT).scalar_subquery()
_SEASON = select(func.max(season.c.id)).where(season.c.chat_id == _CHAT).scalar_subquery()
_ARCHIVED = (
    select(func.count(season.c.archived_at)).where(season.c.chat_id == _CHAT).scalar_subquery()
)
_PLAYERS = select(func.max(player.c.id)).where(player.c.chat_id == _CHAT).scalar_subquery()
_MARK = (
    select(
        _LAST_SEQ,
        _SEASON,
        _ARCHIVED,
        _PLAYERS,
        chat.c.lang,
        chat.c.stake,
        chat.c.stakes,
        chat.c.tz,
        chat.c.zerosum,
        chat.c.sisuang,
        game_table.c.id,
        game_table.c.seats,
        game_table.c.dealer,
        game_table.c.marathon,
        game_table.c.zerosum,
        game_table.c.sisuang,
    )
    .select_from(
        chat.outerjoin(
            game_table,
            and_(
                game_table.c.chat_id == chat.c.id,
                game_table.c.closed_at.is_(None),
                game_table.c.thread_id == bindparam("thread_id"),
            ),
        )
    )
    .where(chat.c.id == _CHAT)
)


def mark(db: Connection, chat_id: int, thread_id: int) -> str:
    """A short digest of what the chat's (and topic's) pages show: equal marks, nothing new."""
    row = db.execute(_MARK, {"chat_id": chat_id, "thread_id": thread_id}).first()
    text = repr(None if row is None else tuple(row))
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
