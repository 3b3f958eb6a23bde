"""Who sent a message: a member who typed it, or something that only carries a command.

Commands run only when a member typed them in the chat: a forwarded message (``forward_origin``),
a linked channel's automatic forward (``is_automatic_forward``) and a message sent through
another bot's inline mode (``via_bot``) repeat someone's old text and are ignored.

A message's sender is a user, the group itself (an anonymous admin: ``sender_chat`` is the chat)
or a channel a member posts as (``sender_chat`` is that channel). Each has its own key for the
flood limit: the user id, or the sender chat's id.
"""

from __future__ import annotations

from telegram import Message, Update


def typed_here(message: Message) -> bool:
    """The message was written in this chat by its sender, not forwarded or relayed."""
    return (
        message.forward_origin is None
        and not message.is_automatic_forward
        and message.via_bot is None
    )


def channel_of(message: Message | None) -> int | None:
    """The id of the channel the sender posts as (not the group itself: an anonymous admin)."""
    if message is None or message.sender_chat is None:
        return None
    return None if message.sender_chat.id == message.chat.id else message.sender_chat.id


def sender_key(update: Update) -> int | None:
    """The flood limit's key: the sending chat (anonymous admins, a channel) or the user."""
    message = update.effective_message if update.callback_query is None else None
    if message is not None and message.sender_chat is not None:
        return message.sender_chat.id
    user = update.effective_user
    return None if user is None else user.id
