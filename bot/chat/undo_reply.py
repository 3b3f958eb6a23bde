"""`/undo` as a reply to the bot's message of a hand: that hand, named by the message's button;
undone, that button stays as a disabled one saying so."""

from __future__ import annotations

from dataclasses import replace

from telegram import Bot, InlineKeyboardMarkup, Message
from telegram.error import BadRequest

from bot.commands.callback_data import parse_press
from bot.commands.parsing import ParseError
from bot.delivery.bot_api import disabled_button
from bot.i18n import N_
from service.requests import Edit, Undo

#: The label of an Undo that did its job, or whose record was undone another way.
UNDONE = N_("↩️ Undone")
#: The label of a record's Undo once the record was corrected (its correction has its own).
CORRECTED = N_("✎ Corrected")

NO_BUTTON = N_(
    "That message has no Undo button (it was undone already, or it is not a hand). Reply to a"
    " hand's message, or name the hand by its number:"
)


def undo_of_reply(request: Undo, message: Message, bot_id: int) -> Undo:
    """A bare /undo replying to one of our messages undoes the record whose Undo button that
    message shows (the event id, exact in every table and season); other replies change
    nothing."""
    replied = message.reply_to_message
    if request != Undo() or replied is None or replied.from_user is None:
        return request
    if replied.from_user.id != bot_id:
        return request
    keyboard = replied.reply_markup.inline_keyboard if replied.reply_markup else ()
    for row in keyboard:
        for button in row:
            press = parse_press(
                button.callback_data if isinstance(button.callback_data, str) else None
            )
            if press is not None and press.action == "undo":
                return Undo(event_id=int(press.arg), from_message=True)
    raise ParseError(NO_BUTTON, "/undo 7")


async def spend(bot: Bot, message: Message, label: str) -> None:
    """The buttons of `message` (a record's Undo) become one disabled button saying `label`
    (already so: fine)."""
    markup = InlineKeyboardMarkup([[disabled_button(label)]])
    try:
        await bot.edit_message_reply_markup(
            message.chat.id, message.message_id, reply_markup=markup
        )
    except BadRequest as err:
        if "not modified" not in str(err).lower():
            raise


def edit_of_reply(request: Edit, message: Message, bot_id: int) -> Edit:
    """`/edit <command>` (no number) replying to one of our messages corrects the record
    whose Undo button that message shows (a correction's: the record it corrected, as that
    correction left it); other replies change nothing."""
    replied = message.reply_to_message
    if request.hand_no is not None or request.event_id is not None or replied is None:
        return request
    if replied.from_user is None or replied.from_user.id != bot_id:
        return request
    keyboard = replied.reply_markup.inline_keyboard if replied.reply_markup else ()
    for row in keyboard:
        for button in row:
            data = button.callback_data if isinstance(button.callback_data, str) else None
            press = parse_press(data)
            if press is not None and press.action == "undo":
                return replace(request, event_id=int(press.arg))
    raise ParseError(NO_EDIT_BUTTON, "/edit 7 /hu 阿张 pao 小李")


NO_EDIT_BUTTON = N_(
    "That message names no record (it has no Undo button). Reply to a record's message, or"
    " name the record by its number:"
)
