"""Who is an admin: the creator and administrators of a group (getChatMember), an anonymous
admin (the group itself sends), anyone in a private chat; and which requests need to know (who
may use each command is in the command table, `bot.commands.catalog`)."""

from __future__ import annotations

import logging

from telegram import Update
from telegram.constants import ChatMemberStatus, ChatType
from telegram.error import TelegramError
from telegram.ext import ContextTypes

from bot.commands.catalog import MAKERS, Who
from service.requests import Request, Undo

log = logging.getLogger(__name__)
ADMIN_STATUSES = (ChatMemberStatus.OWNER, ChatMemberStatus.ADMINISTRATOR)


async def is_admin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> bool:
    """Creator, administrators and anonymous admins of a group; anyone in a private chat."""
    chat, user, message = update.effective_chat, update.effective_user, update.effective_message
    if chat is None:
        return False
    if chat.type == ChatType.PRIVATE:
        return True
    if (
        message is not None
        and message.sender_chat is not None
        and message.sender_chat.id == chat.id
    ):
        return True
    if user is None:
        return False
    try:
        member = await context.bot.get_chat_member(chat.id, user.id)
    except TelegramError:  # unknown to the server: not an admin we can confirm
        log.warning("could not check whether %s is an admin of %s", user.id, chat.id)
        return False
    return member.status in ADMIN_STATUSES


def needs_admin_check(request: Request) -> bool:
    """Whether the service must know if the sender is an admin: the command that makes the
    request is for admins, or asks (`catalog.Who`); an /undo only when it names a record (an
    Undo button, `/undo 7`: another table's needs an admin)."""
    command = MAKERS.get(type(request))
    if command is None or command.who is Who.ANYONE:
        return False
    if isinstance(request, Undo):
        return request.event_id is not None or request.hand_no is not None
    return True
