"""A reply as Telegram takes it, the one way every reply goes out: its text in as many messages
as Telegram's limit needs (cut between lines), its buttons on the last; HTML by the bot's
defaults. `send` answers a message (in its chat and topic, not quoting it); `post` writes in a
chat and topic where no message is answered (the Mini App's records, posted as the chat's)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from telegram import Bot, InlineKeyboardMarkup, Message

from bot.presentation.markup import markup, split_text
from bot.presentation.out import Out

#: Sends one message: its text and, on the last, the buttons.
Part = Callable[[str, InlineKeyboardMarkup | None], Awaitable[Message]]


async def send(message: Message, out: Out) -> None:
    """Reply in the message's chat (and topic, business chat, channel's direct messages), not
    quoting it."""

    async def part(text: str, buttons: InlineKeyboardMarkup | None) -> Message:
        return await message.reply_text(text, do_quote=False, reply_markup=buttons)

    await _parts(out, part)


async def post(bot: Bot, chat_id: int, thread_id: int, out: Out) -> None:
    """Write in chat `chat_id` and forum topic `thread_id` (0: none)."""

    async def part(text: str, buttons: InlineKeyboardMarkup | None) -> Message:
        return await bot.send_message(
            chat_id, text, message_thread_id=thread_id or None, reply_markup=buttons
        )

    await _parts(out, part)


async def _parts(out: Out, part: Part) -> None:
    parts = split_text(out.text)
    for i, text in enumerate(parts, 1):
        await part(text, markup(out) if i == len(parts) else None)
