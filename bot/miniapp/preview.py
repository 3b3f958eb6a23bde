"""`/app/api/tiles`: the tile keyboard's preview (`static/tiles.js`).

GET: the keyboard's words and the ways to win in the chat's language, the open table's seats.
POST `{form}` (a /hu form whose clauses may carry `tiles`, the keyboard's notation): the hand as
the chat would record it — the pattern and flags the tiles read as, the reading scored, the
payments and nets — from the service's dry run (`Service.try_out`: run, then rolled back), or
the refusal's reason. Nothing is recorded.
"""

from __future__ import annotations

import asyncio
from typing import Any

from bot.commands.parsing import ParseError
from bot.miniapp import texts
from bot.miniapp.api import Env, _Recording
from bot.presentation.render import Renderer
from bot.presentation.render_hands import hand_lines
from service.errors import ServiceError
from service.hand_views import MahjongView
from service.replies import Recorded, TableView
from service.requests import ShowPlayers


def _wins(reply: Recorded) -> list[dict[str, Any]]:
    """Each win's pattern, flags and reading, as the page shows them next to the tiles."""
    hand = reply.view.detail
    wins = hand.wins if isinstance(hand, MahjongView) else ()
    return [
        {
            "pattern": win.value.pattern.value,
            "groups": win.value.groups,
            "qingyise": win.value.qingyise,
            "menqing": win.value.menqing,
            "quanqiuren": win.value.quanqiuren,
            "reading": win.tiles.reading if win.tiles is not None else None,
        }
        for win in wins
    ]


class TilesHandler(_Recording):
    """GET: the words and seats; POST `{form}`: the hand the tiles make, or why not."""

    async def get(self) -> None:
        table, lang = await self.read(ShowPlayers())
        lang = self.renderer(lang).lang
        seats = list(table.seats) if isinstance(table, TableView) else []
        strings = texts.strings(lang)
        self.write(
            {"lang": lang, "words": strings["tiles"], "wins": strings["win"], "seats": seats}
        )

    async def post(self) -> None:
        try:
            text, request = await self.request_of(self.body().get("form"))
            answer = await asyncio.to_thread(self.env.service.try_out, self.ctx(text), request)
        except (ParseError, ServiceError) as err:  # the whole reason (an alert's is cut short)
            renderer = Renderer(await self.language())
            self.write({"ok": False, "error": renderer.error(err.msgid, err.params).text})
            return
        reply = answer.reply
        if not isinstance(reply, Recorded):
            self.write({"ok": True, "command": text, "html": [], "wins": []})
            return
        r = self.renderer(answer.lang)
        self.write(
            {"ok": True, "command": text, "html": hand_lines(r._, reply.view), "wins": _wins(reply)}
        )


def routes(env: Env) -> list[tuple[str, type[_Recording], dict[str, Any]]]:
    """Before `api.routes` (whose last route takes every other /app/api/ path)."""
    return [(r"/app/api/tiles", TilesHandler, {"env": env})]
