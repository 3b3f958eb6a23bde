"""/yue in the chat: the poll posted under a game arranged, the answers to it (`poll_answer`
updates, which name no chat: the poll's game says which), "the table is full", and the reminder
worker (`remind`, every `TICK` seconds from start-up: each reminder claimed in the database
first, so it is sent once whatever the workers and restarts)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from datetime import datetime

from telegram import Message, Update
from telegram.ext import ContextTypes

from bot.chat.service_call import run, service, thread_of
from bot.commands.callback_data import press_key
from bot.delivery.messages import post, send
from bot.presentation import render_plans
from bot.presentation.render import Renderer
from bot.ptb_types import AnyApplication
from service.context import Actor, Ctx
from service.replies import PlanMade, PlanNoted
from service.requests import PollPosted, PollVote

log = logging.getLogger(__name__)
TICK = 30.0  # seconds between two looks for reminders due


async def made(
    update: Update,
    context: ContextTypes.DEFAULT_TYPE,
    message: Message,
    r: Renderer,
    v: PlanMade,
) -> None:
    """The game arranged: said, then its poll (not anonymous: each answer reaches the bot),
    whose ids are kept so that the answers find their game."""
    await send(message, r.render(v))
    _ = r._
    thread = thread_of(message)
    poll = await context.bot.send_poll(
        message.chat_id,
        render_plans.question(_, v),
        render_plans.options(_),
        is_anonymous=False,
        allows_multiple_answers=False,
        allows_revoting=True,  # a member may change their answer
        message_thread_id=thread or None,
    )
    assert poll.poll is not None
    posted = PollPosted(v.plan_id, poll.poll.id, poll.message_id)
    key = press_key(message.chat_id, poll.message_id, "poll")  # its own exactly-once key
    await run(update, context, posted, "[poll]", once_key=key)


async def on_poll_answer(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """A member answered a /yue poll: kept (their last answer counts); the chat is told once
    when the game's number said yes."""
    answer = update.poll_answer
    if answer is None or answer.user is None:
        return  # a vote as a channel: nobody to remind
    where = await asyncio.to_thread(service(context).plan_chat, answer.poll_id)
    if where is None:
        return  # not ours, or gone
    chat_id, thread_id = where
    user = answer.user
    ctx = Ctx(
        chat_id=chat_id,
        actor=Actor(user.id, user.first_name, user.username, user.language_code),
        thread_id=thread_id,
        update_id=update.update_id,
        text="[poll]",
    )
    vote = PollVote(answer.poll_id, tuple(answer.option_ids))
    answered = await service(context).perform(ctx, vote)
    reply = answered.reply
    if isinstance(reply, PlanNoted) and reply.full is not None:
        await post(context.bot, chat_id, thread_id, Renderer(answered.lang).render(reply))


async def remind(application: AnyApplication, now: datetime | None = None) -> int:
    """Send the reminders due (claimed first, in the database); how many were sent."""
    due = await asyncio.to_thread(application.bot_data["service"].due_reminders, now)
    for reminder in due:
        out = Renderer(reminder.lang).render(reminder)
        try:
            await post(application.bot, reminder.chat_id, reminder.thread_id, out)
            if reminder.closed is not None:  # last night's table closed: its card offered
                notice = Renderer(reminder.lang).render(reminder.closed)
                await post(application.bot, reminder.chat_id, reminder.thread_id, notice)
        except Exception:  # one chat's failure (the bot removed) does not stop the others
            log.warning("a /yue reminder could not be sent", exc_info=True)
    return len(due)


async def _every_tick(application: AnyApplication) -> None:
    while True:
        await asyncio.sleep(TICK)
        try:
            await remind(application)
        except Exception:
            log.warning("the /yue reminders could not be read", exc_info=True)


def start_reminders(application: AnyApplication) -> None:
    """The reminder worker, from start-up (`post_init`) to shutdown (`stop_reminders`)."""
    application.bot_data["reminders"] = asyncio.get_running_loop().create_task(
        _every_tick(application)
    )


async def stop_reminders(application: AnyApplication) -> None:
    task = application.bot_data.pop("reminders", None)
    if task is not None:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
