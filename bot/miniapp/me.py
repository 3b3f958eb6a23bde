"""`/app/api/me`: the member's own record in every group (/me), for the Mini App's page of its
own (`static/me.html`), opened from the private chat with the bot. Only the launch data is
needed (checked like every request: 401 without it): the record is the launching user's, and
no chat token is involved; a group shows only while Telegram says the user is its member."""

from __future__ import annotations

import asyncio
from typing import Any

import tornado.web

from bot.miniapp import auth, guard
from bot.miniapp.api import INIT_HEADER, Env
from bot.miniapp.members import current_groups
from bot.presentation.render import Renderer
from service.context import Actor, Ctx
from service.names import member_name
from service.replies import MeView
from service.requests import Me


class MeHandler(tornado.web.RequestHandler):
    """GET: the record as /me shows it in the private chat (rendered, escaped HTML)."""

    env: Env

    def initialize(self, env: Env) -> None:
        self.env = env

    def set_default_headers(self) -> None:
        self.set_header("Cache-Control", "no-store")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        self.finish()

    async def get(self) -> None:
        launch = auth.verify(
            self.request.headers.get(INIT_HEADER, ""),
            self.env.token,
            max_age=self.env.max_age,
            now=self.env.clock(),
        )
        if launch is None:
            raise tornado.web.HTTPError(401)
        views = self.env.application.bot_data.get("views")  # a read: the member's views budget
        user, lang = launch.user_id, launch.language
        if guard.flooded(self, views, user, user, lang, guard.VIEWS_WARNING):
            return
        name = member_name(launch.first_name, launch.username, launch.user_id)
        actor = Actor(launch.user_id, name, launch.username, launch.language)
        ctx = Ctx(chat_id=launch.user_id, actor=actor)  # the private chat with the bot
        answer = await asyncio.to_thread(self.env.service.answer, ctx, Me())
        reply = answer.reply
        if isinstance(reply, MeView):  # the groups the user is a member of now, as /me's
            reply = await current_groups(self.env.application.bot, launch.user_id, reply)
        renderer = Renderer(answer.lang)
        self.write({"lang": renderer.lang, "html": renderer.render(reply).text})


def routes(env: Env) -> list[tuple[str, type[tornado.web.RequestHandler], dict[str, Any]]]:
    """Before the app's other `/app/api/` routes (the last of those takes every other path)."""
    return [(r"/app/api/me", MeHandler, {"env": env})]
