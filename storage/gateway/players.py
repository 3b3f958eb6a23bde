"""The players of a chat: Telegram users and guests (no user id, maybe linked later)."""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.engine import Connection

from storage.gateway import every, first, shaped
from storage.models import PlayerRow, balance, player

_BY_IDS = select(player).where(player.c.id.in_(bindparam("ids", expanding=True)))
_OF_CHAT = select(player).where(player.c.chat_id == bindparam("chat_id")).order_by(player.c.id)
_OF_USER = select(player).where(
    player.c.chat_id == bindparam("chat_id"), player.c.user_id == bindparam("user_id")
)
_EVERYWHERE = select(player).where(player.c.user_id == bindparam("user_id")).order_by(player.c.id)
_GUESTS_OF = (
    select(player)
    .where(
        player.c.chat_id == bindparam("chat_id"),
        player.c.user_id.is_(None),
        func.lower(player.c.username) == bindparam("username"),
    )
    .order_by(player.c.id)
)
_IN_CHAT = select(player).where(
    player.c.chat_id == bindparam("chat_id"), player.c.id == bindparam("player_id")
)
_ADD = insert(player).returning(*player.c)
_SAVE = update(player).where(player.c.id == bindparam("player_id"))
_PLAYED = select(balance.c.player_id).where(balance.c.player_id == bindparam("player_id")).limit(1)


def players_by_id(db: Connection, ids: Iterable[int]) -> dict[int, PlayerRow]:
    wanted = list(set(ids))
    if not wanted:
        return {}
    rows = db.execute(_BY_IDS, {"ids": wanted})
    return {row.id: shaped(PlayerRow, player, row) for row in rows}


def players_of_chat(db: Connection, chat_id: int) -> list[PlayerRow]:
    """Everyone who ever played in the chat, oldest first."""
    return every(PlayerRow, db.execute(_OF_CHAT, {"chat_id": chat_id}))


def player_of_user(db: Connection, chat_id: int, user_id: int) -> PlayerRow | None:
    return first(PlayerRow, db.execute(_OF_USER, {"chat_id": chat_id, "user_id": user_id}))


def players_of_user(db: Connection, user_id: int) -> list[PlayerRow]:
    """A Telegram user's players, one per chat they play in, oldest first."""
    return every(PlayerRow, db.execute(_EVERYWHERE, {"user_id": user_id}))


def guests_where(db: Connection, chat_id: int, *, username: str) -> list[PlayerRow]:
    """The chat's guests linked to this @username (case ignored), oldest first."""
    return every(
        PlayerRow, db.execute(_GUESTS_OF, {"chat_id": chat_id, "username": username.lower()})
    )


def add_player(
    db: Connection, chat_id: int, name: str, user_id: int | None = None, username: str | None = None
) -> PlayerRow:
    """A new player: a Telegram user, or a guest (no user id)."""
    params = {"chat_id": chat_id, "name": name, "user_id": user_id, "username": username}
    return shaped(PlayerRow, player, db.execute(_ADD, params).one())


def save_player(db: Connection, row: PlayerRow) -> None:
    """A player's name, Telegram user and @username."""
    db.execute(
        _SAVE,
        {
            "player_id": row.id,
            "name": row.name,
            "user_id": row.user_id,
            "username": row.username,
            "named": row.named,
        },
    )


def player_in_chat(db: Connection, chat_id: int, player_id: int) -> PlayerRow | None:
    return first(PlayerRow, db.execute(_IN_CHAT, {"chat_id": chat_id, "player_id": player_id}))


def has_played(db: Connection, player_id: int) -> bool:
    """Whether the player sat at a recorded hand (every seated player has a balance then)."""
    return db.execute(_PLAYED, {"player_id": player_id}).first() is not None
