"""`/app/api/qr`: the table's link (the one /app gives, `bot.miniapp.link`) as a QR code in SVG,
drawn here with segno, so that friends at the table open the app by pointing a phone at it.
404 when the app has no link to give (no `JIFEN_APP_NAME`, as in the offline console)."""

from __future__ import annotations

import io
from typing import Any

import tornado.web

from bot.miniapp.api import CHAT_HEADER, Api, Env
from bot.miniapp.link import link
from bot.settings import Settings


def svg(text: str) -> bytes:
    """`text` as a QR code: black on white with the standard quiet zone, sized by its viewBox
    (segno imported at the first: an idle bot does not carry it)."""
    import segno

    code = segno.make(text, error="m", micro=False)
    out = io.BytesIO()
    code.save(
        out,
        kind="svg",
        border=4,
        dark="#000",
        light="#fff",
        xmldecl=False,
        omitsize=True,
        svgclass="qr",
        lineclass=None,
        title=text,
    )
    return out.getvalue()


class QrHandler(Api):
    """GET: the SVG of the link that opens this chat's (and topic's) table."""

    def table_link(self) -> str | None:
        config: Settings | None = self.env.application.bot_data.get("settings")
        username = self.env.application.bot.username
        if config is None or not config.app_name or not username:
            return None
        # The request's token opens this very chat and topic (`Api.prepare`): the link's own.
        return link(username, config.app_name, self.request.headers[CHAT_HEADER])

    async def get(self) -> None:
        found = self.table_link()
        if found is None:
            raise tornado.web.HTTPError(404)
        self.set_header("Content-Type", "image/svg+xml")
        self.finish(svg(found))


def routes(env: Env) -> list[tuple[str, type[Api], dict[str, Any]]]:
    return [(r"/app/api/qr", QrHandler, {"env": env})]
