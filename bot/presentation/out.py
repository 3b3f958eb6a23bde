"""A rendered message: its HTML text and its rows of inline buttons (`markup` makes them the
keyboard Telegram takes)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Button:
    """An inline button: it sends `data` back to the bot, or opens `url`, or opens the Mini App
    page `web_app` (Telegram allows those in private chats only)."""

    label: str
    data: str = ""
    url: str | None = None
    web_app: str | None = None


@dataclass(frozen=True)
class Out:
    """A message to send: HTML text and rows of inline buttons."""

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()
