"""Who may see a chat in the app: its members (getChatMember), remembered for a short while;
and whose /me shows a group: its current members only (`current_groups`, asked afresh)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from enum import Enum

from telegram import Bot
from telegram.constants import ChatMemberStatus
from telegram.error import TelegramError

from service.replies import MeView

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
        role = await role_of(bot, chat_id, user_id)
        if len(self._seen) >= MAX_ENTRIES:
            self._seen.clear()
        self._seen[(chat_id, user_id)] = (now, role)
        return role


async def role_of(bot: Bot, chat_id: int, user_id: int) -> Role:
    """The user's standing in the group, asked of Telegram now (NONE: left, removed, restricted
    out of it, or unknown to Telegram)."""
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


async def current_groups(bot: Bot, user_id: int, view: MeView) -> MeView:
    """/me's groups of which the user is a member now, asked afresh as a recording asks: a
    group they left or were removed from is dropped, its mates and head-to-head with it."""
    roles = await asyncio.gather(*(role_of(bot, g.chat_id, user_id) for g in view.groups))
    kept = (g for g, role in zip(view.groups, roles, strict=True) if role is not Role.NONE)
    return replace(view, groups=tuple(kept))  # asked in a group, it stays for the sender alone
