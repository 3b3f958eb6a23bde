"""Who asks, where: the service's view of an incoming command (no Telegram types)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Actor:
    user_id: int | None  # None: an anonymous admin writing as the chat, or a channel
    name: str
    username: str | None = None
    language: str | None = None  # Telegram's language_code
    channel_id: int | None = None  # a member posting as this channel: records, never sits

    @property
    def recorder_id(self) -> int | None:
        """Who a record is attributed to: the user, or the channel (None: anonymous admin)."""
        return self.user_id if self.user_id is not None else self.channel_id


@dataclass(frozen=True)
class Ctx:
    chat_id: int
    actor: Actor
    thread_id: int = 0  # forum topic; 0 for none
    is_admin: bool = False  # group admin (creator, administrator, anonymous admin) or private chat
    update_id: int | None = None  # for exactly-once recording
    text: str = ""  # the command as typed
    chat_title: str | None = None  # the group's title in the update (kept for /me)
