"""Who asks, where: the service's view of an incoming command (no Telegram types)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Actor:
    user_id: int | None  # None: an anonymous admin writing as the chat
    name: str
    username: str | None = None
    language: str | None = None  # Telegram's language_code


@dataclass(frozen=True)
class Ctx:
    chat_id: int
    actor: Actor
    thread_id: int = 0  # forum topic; 0 for none
    is_admin: bool = False  # group admin (creator, administrator, anonymous admin) or private chat
    update_id: int | None = None  # for exactly-once recording
    text: str = ""  # the command as typed
