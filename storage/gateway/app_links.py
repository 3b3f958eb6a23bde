"""The Mini App's tokens: one per chat and forum topic."""

from __future__ import annotations

import secrets

from sqlalchemy import bindparam, insert, select
from sqlalchemy.engine import Connection

from storage.models import app_link

TOKEN_BYTES = 24  # 32 URL-safe characters; Telegram's startapp allows up to 512 of A-Za-z0-9_-
_TOKEN = select(app_link.c.token).where(
    app_link.c.chat_id == bindparam("chat_id"), app_link.c.thread_id == bindparam("thread_id")
)
_PLACE = select(app_link.c.chat_id, app_link.c.thread_id).where(
    app_link.c.token == bindparam("token")
)


def token_for(db: Connection, chat_id: int, thread_id: int) -> str:
    """The chat's (and topic's) token, made on first use (the chat's row is locked)."""
    found = db.scalar(_TOKEN, {"chat_id": chat_id, "thread_id": thread_id})
    if found is not None:
        return str(found)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    db.execute(insert(app_link).values(token=token, chat_id=chat_id, thread_id=thread_id))
    return token


def place_of(db: Connection, token: str) -> tuple[int, int] | None:
    """The (chat id, thread id) a token opens, or None."""
    row = db.execute(_PLACE, {"token": token}).first()
    return None if row is None else (int(row[0]), int(row[1]))
