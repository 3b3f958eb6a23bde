"""`/app/api/live?v=MARK`: how an open page follows the table without its stream.

A page whose stream (`bot.miniapp.events`) cannot be opened asks every ~1.5 s whether its chat's
live mark (`storage.gateway.live`: one indexed statement) is still the one its data came with:
204 and no body when it is, else 200 and the new mark, and the page fetches its data again.
Every worker answers from the database, so it works with any number of webhook workers.
Authenticated like every `/app/api` request; the poll does not count against the member's flood
limit in the chat (the chat's commands would run out) but has a limit of its own, `Polls`: a
steady pace of a few pages per member, bursts allowed.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import tornado.web

from bot.miniapp.api import Api, Env
from service.app import Place as Spot

MARK = re.compile(r"[0-9a-f]{1,32}")
RATE = 2.0  # polls per second a member may keep up in a chat (a page polls every 1.5 s)
BURST = 20.0  # polls at once (pages opened together, a tab back from the background)
KEEP = 10_000  # members remembered before the idle ones (a full bucket) are forgotten


@dataclass
class Polls:
    """A token bucket per member and chat: `RATE` polls a second, `BURST` at once."""

    rate: float = RATE
    burst: float = BURST
    clock: Callable[[], float] = time.monotonic
    _buckets: dict[tuple[int, int], tuple[float, float]] = field(default_factory=dict)

    def take(self, user_id: int, chat_id: int) -> float:
        """0 when the poll may go on (and is counted), else the seconds until it may."""
        now = self.clock()
        key = (user_id, chat_id)
        tokens, at = self._buckets.get(key, (self.burst, now))
        tokens = min(self.burst, tokens + (now - at) * self.rate)
        if tokens < 1:
            self._buckets[key] = (tokens, now)
            return (1 - tokens) / self.rate
        if len(self._buckets) >= KEEP and key not in self._buckets:
            self._forget(now)
        self._buckets[key] = (tokens - 1, now)
        return 0.0

    def _forget(self, now: float) -> None:
        full = self.burst / self.rate
        for key, (_, at) in list(self._buckets.items()):
            if now - at >= full:
                del self._buckets[key]


class LiveHandler(Api):
    """GET `?v=MARK`: 204 while the chat's mark is MARK, else 200 `{"v": mark}`; 429 with
    Retry-After past the member's poll limit."""

    counted = False
    polls: Polls
    mark = ""

    def initialize(self, env: Env, polls: Polls | None = None) -> None:
        super().initialize(env)
        self.polls = polls or Polls()

    def locate(self, token: str) -> Spot | None:
        """The token's chat and, in the same read, its mark: a poll is one trip to a thread."""
        found = self.env.service.app.live(token)
        if found is None:
            return None
        self.mark = found.mark
        return found.place

    async def get(self) -> None:
        given = self.get_query_argument("v", "")
        if given and not MARK.fullmatch(given):
            raise tornado.web.HTTPError(400)
        wait = self.polls.take(self.place.launch.user_id, self.place.chat_id)
        if wait:
            self.set_status(429)
            self.set_header("Retry-After", str(max(1, math.ceil(wait))))
            self.finish({"ok": False})
            return
        mark = self.mark  # read with the token's chat (`locate`)
        if mark == given:
            self.set_status(204)
            self.finish()
            return
        self.write({"v": mark})


def routes(env: Env) -> list[tuple[str, type[Api], dict[str, Any]]]:
    return [(r"/app/api/live", LiveHandler, {"env": env, "polls": Polls(clock=time.monotonic)})]
