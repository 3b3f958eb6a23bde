"""The players of a chat: Telegram users and guests (no user id, maybe linked later)."""

from __future__ import annotations

from collections.abc import Iterable

from storage.rows import PlayerRow
from storage.sql import Sql, placeholders

PLAYER = "id, name, user_id, username"


def players_by_id(db: Sql, ids: Iterable[int]) -> dict[int, PlayerRow]:
    wanted = list(set(ids))
    if not wanted:
        return {}
    rows = db.rows(f"SELECT {PLAYER} FROM player WHERE id IN ({placeholders(len(wanted))})", wanted)
    return {row[0]: PlayerRow(*row) for row in rows}


def players_of_chat(db: Sql, chat_id: int) -> list[PlayerRow]:
    """Everyone who ever played in the chat, oldest first."""
    rows = db.rows(f"SELECT {PLAYER} FROM player WHERE chat_id = ? ORDER BY id", (chat_id,))
    return [PlayerRow(*row) for row in rows]


def player_of_user(db: Sql, chat_id: int, user_id: int) -> PlayerRow | None:
    row = db.row(
        f"SELECT {PLAYER} FROM player WHERE chat_id = ? AND user_id = ?", (chat_id, user_id)
    )
    return None if row is None else PlayerRow(*row)


def guests_where(db: Sql, chat_id: int, *, username: str) -> list[PlayerRow]:
    """The chat's guests linked to this @username (case ignored), oldest first."""
    rows = db.rows(
        f"SELECT {PLAYER} FROM player WHERE chat_id = ? AND user_id IS NULL"
        " AND lower(username) = ? ORDER BY id",
        (chat_id, username.lower()),
    )
    return [PlayerRow(*row) for row in rows]


def add_player(
    db: Sql, chat_id: int, name: str, user_id: int | None = None, username: str | None = None
) -> PlayerRow:
    """A new player: a Telegram user, or a guest (no user id)."""
    player_id = db.insert(
        "INSERT INTO player (chat_id, name, user_id, username) VALUES (?, ?, ?, ?)",
        (chat_id, name, user_id, username),
    )
    return PlayerRow(player_id, name, user_id, username)


def save_player(db: Sql, player: PlayerRow) -> None:
    """A player's name, Telegram user and @username."""
    db.run(
        "UPDATE player SET name = ?, user_id = ?, username = ? WHERE id = ?",
        (player.name, player.user_id, player.username, player.id),
    )


def player_in_chat(db: Sql, chat_id: int, player_id: int) -> PlayerRow | None:
    row = db.row(f"SELECT {PLAYER} FROM player WHERE chat_id = ? AND id = ?", (chat_id, player_id))
    return None if row is None else PlayerRow(*row)


def has_played(db: Sql, player_id: int) -> bool:
    """Whether the player sat at a recorded hand (every seated player has a balance then)."""
    return db.row("SELECT 1 FROM balance WHERE player_id = ? LIMIT 1", (player_id,)) is not None
