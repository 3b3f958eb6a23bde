"""Mounting the app: `/app/` (the page, `static/`) and `/app/api/` (JSON) as tornado routes, on
the webhook server or, with long polling, on a server of their own."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import tornado.web
from tornado.httpserver import HTTPServer
from tornado.netutil import bind_sockets

from bot.miniapp import events, guard, live, preview, qr
from bot.miniapp.api import Env
from bot.miniapp.api import routes as api_routes
from bot.miniapp.me import routes as me_routes
from bot.ptb_types import AnyApplication
from bot.settings import Settings

STATIC = Path(__file__).parent / "static"
MAX_BODY = 64 * 1024  # a recording is a few hundred bytes
Route = tuple[str, type[tornado.web.RequestHandler], dict[str, Any]]


class Static(tornado.web.StaticFileHandler):
    """The page's files: revalidated each time (an upgrade shows at once), no framing limits
    (Telegram Web shows Mini Apps in a frame), nothing loaded from elsewhere."""

    def set_extra_headers(self, path: str) -> None:
        self.set_header("Cache-Control", "no-cache")
        self.set_header(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'",
        )
        self.set_header("X-Content-Type-Options", "nosniff")

    def parse_url_path(self, url_path: str) -> str:
        guard.static_path(self, url_path)  # a NUL or a control character is no file's name
        return super().parse_url_path(url_path)


def routes(
    application: AnyApplication,
    *,
    token: str,
    max_age: float,
    streams: int = events.STREAMS,
    **env: Any,
) -> list[Route]:
    """The app's routes for `application`; launch data must be signed with `token` (the bot's;
    the console's own key) and at most `max_age` seconds old; at most `streams` open pages
    streamed to (`env`: more `Env` fields)."""
    context = Env(application, token, max_age, **env)
    return [
        *me_routes(context),  # /me's page of its own (bot.miniapp.me)
        *preview.routes(context),
        *live.routes(context),  # the page follows the table (bot.miniapp.live)
        *events.routes(context, streams),  # ... told when it moves (bot.miniapp.events)
        *qr.routes(context),  # the table's link as a QR code
        *api_routes(context),
        (r"/app/?()", Static, {"path": str(STATIC), "default_filename": "index.html"}),
        (r"/app/(.+)", Static, {"path": str(STATIC)}),
    ]


def for_bot(application: AnyApplication, config: Settings) -> list[Route]:
    """The routes of a bot with a token, or none when the app is not set up (no JIFEN_APP_NAME)."""
    if not config.token or not config.app_name:
        return []
    return routes(
        application, token=config.token, max_age=config.app_max_age, streams=config.app_streams
    )


@contextlib.asynccontextmanager
async def serving(routes: list[Route], *, listen: str, port: int) -> AsyncIterator[int]:
    """A server of the app's own (long polling, the console) while the block runs; yields its
    port (`port` 0: a free one)."""
    sockets = bind_sockets(port, address=listen)
    server = HTTPServer(tornado.web.Application(routes), max_body_size=MAX_BODY)
    server.add_sockets(sockets)
    try:
        yield int(sockets[0].getsockname()[1])
    finally:
        server.stop()
        await server.close_all_connections()  # an open page's stream too
