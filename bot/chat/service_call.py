"""A request run for an update: who asks (the member, the channel posted as, an anonymous
admin), in which forum topic, whether an admin; then the service, in one transaction."""

from __future__ import annotations

import asyncio

from telegram import Message, Update
from telegram.ext import ContextTypes

from bot.chat.admin_check import is_admin, needs_admin_check
from bot.chat.origin import channel_of
from bot.presentation.render import Renderer
from service.context import Actor, Ctx
from service.core import Answer, Service
from service.language import shown
from service.names import clean, member_name
from service.requests import Request


def service(context: ContextTypes.DEFAULT_TYPE) -> Service:
    svc: Service = context.bot_data["service"]
    return svc


async def renderer_for(context: ContextTypes.DEFAULT_TYPE, update: Update) -> Renderer:
    """A renderer in the language the service gives a reply in this chat to this sender
    (`Service.language`: only a read), where no request runs."""
    chat, user = update.effective_chat, update.effective_user
    code = user.language_code if user else None
    if chat is None:
        return Renderer(shown(None, code))
    return Renderer(await asyncio.to_thread(service(context).language, chat.id, code))


def renderer_of(answer: Answer) -> Renderer:
    """A renderer in the language that came with the answer: no second transaction."""
    return Renderer(answer.lang)


def actor_of(update: Update) -> Actor:
    message, chat, user = update.effective_message, update.effective_chat, update.effective_user
    channel = channel_of(message)
    if message is not None and message.sender_chat is not None and channel is not None:
        sender = message.sender_chat
        title = clean(sender.title or "") or sender.username or str(channel)
        return Actor(None, title, sender.username, channel_id=channel)
    if message is not None and chat is not None and message.sender_chat is not None:
        return Actor(None, clean(chat.title or "") or "admin")
    if user is None:
        return Actor(None, "?")
    name = member_name(user.first_name, user.username, user.id)
    return Actor(user.id, name, user.username, user.language_code)


def thread_of(message: Message | None) -> int:
    if message is not None and message.is_topic_message and message.message_thread_id:
        return message.message_thread_id
    return 0


async def run(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    request: Request,
    text: str,
    *,
    once_key: int | None = None,
) -> Answer:
    """Check permissions and run the request (one transaction, or a savepoint of a group
    commit). `once_key` replaces the update id as the key of exactly-once recording (a button
    press: see `press_key`)."""
    ctx = await _ctx(update, context, request, text, once_key)
    return await service(context).perform(ctx, request)


async def dry_run(
    update: Update, context: ContextTypes.DEFAULT_TYPE, request: Request, text: str
) -> Answer:
    """The request run as `run` would, then rolled back: the reply it would give (a preview),
    or its `ServiceError`. Nothing is kept."""
    ctx = await _ctx(update, context, request, text, None)
    return await asyncio.to_thread(service(context).try_out, ctx, request)


async def _ctx(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    request: Request,
    text: str,
    once_key: int | None,
) -> Ctx:
    chat = update.effective_chat
    assert chat is not None
    return Ctx(
        chat_id=chat.id,
        actor=actor_of(update),
        thread_id=thread_of(update.effective_message),
        is_admin=await is_admin(update, context) if needs_admin_check(request) else False,
        update_id=update.update_id if once_key is None else once_key,
        text=text,
        chat_title=chat.title,
    )
