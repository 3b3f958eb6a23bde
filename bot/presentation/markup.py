"""A rendered message as Telegram takes it: its buttons as an inline keyboard, its text cut to
Telegram's length (the chat's replies and the Mini App's posts in the group)."""

from __future__ import annotations

from telegram import CopyTextButton, InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo

from bot.presentation.out import Button, Out

MAX_MESSAGE = 4096  # Telegram's limit on a message's text
MAX_BUTTONS = 100  # the most buttons of one inline keyboard (more is refused)
COPY_TEXT_LIMIT = 256  # `CopyTextButton.text`: 1–256 characters


def markup(out: Out) -> InlineKeyboardMarkup | None:
    """The message's buttons as an inline keyboard (None without buttons)."""
    if not out.buttons:
        return None
    return InlineKeyboardMarkup([[_button(b) for b in row] for row in out.buttons])


def _button(b: Button) -> InlineKeyboardButton:
    if b.web_app is not None:
        return InlineKeyboardButton(b.label, web_app=WebAppInfo(b.web_app), style=b.style)
    if b.url is not None:
        return InlineKeyboardButton(b.label, url=b.url, style=b.style)
    if b.copy is not None:
        return InlineKeyboardButton(b.label, copy_text=CopyTextButton(b.copy), style=b.style)
    return InlineKeyboardButton(b.label, callback_data=b.data, style=b.style)


def split_text(text: str, limit: int = MAX_MESSAGE) -> list[str]:
    """Pieces of at most `limit` characters as Telegram counts them (`units`), cut at line
    ends (each line is whole HTML and far shorter than the limit: names and echoed commands
    are length-limited)."""
    parts: list[str] = []
    current, size = "", 0
    for line in text.split("\n"):
        length = units(line)
        if current and size + 1 + length > limit:
            parts.append(current)
            current, size = line, length
        elif current:
            current, size = f"{current}\n{line}", size + 1 + length
        else:
            current, size = line, length
    return [*parts, current]


def units(text: str) -> int:
    """The length Telegram's limits count: UTF-16 code units (an emoji past U+FFFF is two)."""
    return len(text.encode("utf-16-le")) // 2
