"""Who may see a chat in the app: its members (getChatMember), remembered for a short while."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from enum import Enum

from telegram import Bot
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

log = logging.getLogger(__name__)
CACHE_SECONDS = 60.0
MAX_ENTRIES = 10_000


class Role(Enum):
    NONE = 0  # not in the chat (or unknown to Telegram)
    MEMBER = 1
    ADMIN = 2


_ADMIN = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)
_MEMBER = (ChatMemberStatus.MEMBER, *_ADMIN)


class Members:
    """`role(bot, chat, user)`: the user's standing in the chat; a private chat is its user's."""

    def __init__(
        self, ttl: float = CACHE_SECONDS, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.ttl, self.clock = ttl, clock
        self._seen: dict[tuple[int, int], tuple[float, Role]] = {}

    async def role(self, bot: Bot, chat_id: int, user_id: int, *, fresh: bool = False) -> Role:
        """`fresh`: asked of Telegram now (a recording), not read from the cache."""
        if chat_id > 0:  # a private chat's id is its user's
            return Role.ADMIN if chat_id == user_id else Role.NONE
        now = self.clock()
        seen = self._seen.get((chat_id, user_id))
        if seen is not None and now - seen[0] < self.ttl and not fresh:
            return seen[1]
        role = await self._ask(bot, chat_id, user_id)
        if len(self._seen) >= MAX_ENTRIES:
            self._seen.clear()
        self._seen[(chat_id, user_id)] = (now, role)
        return role

    @staticmethod
    async def _ask(bot: Bot, chat_id: int, user_id: int) -> Role:
        try:
            member = await bot.get_chat_member(chat_id, user_id)
        except TelegramError:
            log.info("membership of %s in %s unknown", user_id, chat_id)
            return Role.NONE
        if member.status in _ADMIN:
            return Role.ADMIN
        restricted_member = member.status == ChatMemberStatus.RESTRICTED and getattr(
            member, "is_member", False
        )
        return Role.MEMBER if member.status in _MEMBER or restricted_member else Role.NONE
