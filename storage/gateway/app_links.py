"""The Mini App's tokens: one per chat and forum topic."""

from __future__ import annotations

import secrets

from storage.sql import Sql

TOKEN_BYTES = 24  # 32 URL-safe characters; Telegram's startapp allows up to 512 of A-Za-z0-9_-


def token_for(db: Sql, chat_id: int, thread_id: int) -> str:
    """The chat's (and topic's) token, made on first use (the chat's row is locked)."""
    row = db.row(
        "SELECT token FROM app_link WHERE chat_id = ? AND thread_id = ?", (chat_id, thread_id)
    )
    if row is not None:
        return str(row[0])
    token = secrets.token_urlsafe(TOKEN_BYTES)
    db.run(
        "INSERT INTO app_link (token, chat_id, thread_id) VALUES (?, ?, ?)",
        (token, chat_id, thread_id),
    )
    return token


def place_of(db: Sql, token: str) -> tuple[int, int] | None:
    """The (chat id, thread id) a token opens, or None."""
    row = db.row("SELECT chat_id, thread_id FROM app_link WHERE token = ?", (token,))
    return None if row is None else (int(row[0]), int(row[1]))
