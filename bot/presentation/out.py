"""A rendered message: its HTML text and its rows of inline buttons (`markup` makes them the
keyboard Telegram takes)."""

from __future__ import annotations

from dataclasses import dataclass

#: A button's colour (`InlineKeyboardButton.style`, Bot API 9.4): red for what takes a record
#: back (Undo), green for what records or confirms (Record again, Confirm).
DANGER = "danger"
SUCCESS = "success"


@dataclass(frozen=True)
class Button:
    """An inline button: it sends `data` back to the bot, or opens `url`, or opens the Mini App
    page `web_app` (Telegram allows those in private chats only), or copies `copy` to the
    clipboard. `style`: "danger" (red), "success" (green), None: the app's own."""

    label: str
    data: str = ""
    url: str | None = None
    web_app: str | None = None
    copy: str | None = None
    style: str | None = None


@dataclass(frozen=True)
class Out:
    """A message to send: HTML text and rows of inline buttons."""

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
