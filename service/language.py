"""Which of jifen's two languages a reply is in: decided here, and only here.

A chat keeps one language: `/set lang`, or the Telegram language of whoever sent its first kept
command (`service.core`), or of the first to look at it if that sender had none (`keep_first`).
Until it has one, and where no chat is read (a failure, the flood guard), a reply is in the
sender's Telegram language: Chinese for any `zh…` code, else English.
"""

from __future__ import annotations

from service.context import Ctx
from storage.gateway import chats
from storage.unit_of_work import ChatWrite, UnitOfWork

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


def keep_first(uow: UnitOfWork, ctx: Ctx) -> str | None:
    """A known chat without a language keeps the asker's (a look after its first record from
    a sender Telegram gave no language); None while neither has one."""
    lang = of_telegram(ctx.actor.language)
    if lang is None:
        return None
    with uow.chat(ctx.chat_id, ctx.thread_id, make=ChatWrite) as work:
        if work.chat.lang is None:
            work.chat.lang = lang
            chats.save_settings(work.db, work.chat)
        return work.chat.lang
