"""Which of jifen's two languages a reply is in: decided here, and only here.

A chat keeps one language (`/set lang`, or the Telegram language of whoever sent its first kept
command: `service.core`); until it has one, and where no chat is read (a failure, the flood
guard), a reply is in the sender's Telegram language: Chinese for any `zh…` code, else English.
"""

from __future__ import annotations

LANGUAGES = ("zh", "en")


def of_telegram(code: str | None) -> str | None:
    """A Telegram language code as one of jifen's languages (`zh-hans` → zh); None: none given."""
    if not code:
        return None
    return "zh" if code.lower().startswith("zh") else "en"


def shown(chat_lang: str | None, telegram_code: str | None) -> str:
    """The language of a reply: the chat's kept one, else the sender's, else English."""
    if chat_lang in LANGUAGES:
        return chat_lang
    return of_telegram(telegram_code) or "en"
