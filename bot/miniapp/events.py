"""`GET /app/api/events`: an open page told when its chat moves (server-sent events).

Authenticated as every `/app/api` request, by the same launch data and chat token, taken from
the query (`?chat=TOKEN&init=LAUNCH_DATA`) when the headers are missing: a browser's
`EventSource` sends none. The stream (`text/event-stream`) sends the chat's live mark
(`bot.miniapp.live`) at once and again whenever it moves (`event: mark`), and a comment every
`KEEPALIVE` seconds so that proxies keep it open; it ends after `LIFETIME` (or when its launch
data expires) and the browser comes back on its own, authenticated again. A worker learns which
chats moved from `storage.notify` (PostgreSQL: every worker's commits), reads each moved chat's
mark once and wakes its streams.

Limits: a member keeps at most `PER_MEMBER` streams per chat in a worker (a new one ends the
oldest with `event: evicted`: that page polls); a worker at most `JIFEN_APP_STREAMS` (beyond, 503:
the page polls); opening a stream counts against the member's poll limit (`live.Polls`). When
the bot stops, every stream ends at once (its page comes back to another worker).
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from tornado.iostream import StreamClosedError

from bot.miniapp.api import CHAT_HEADER, INIT_HEADER, Env
from bot.miniapp.live import LiveHandler, Polls
from service.app import Place

log = logging.getLogger(__name__)
KEEPALIVE = 25.0  # seconds between comments on a quiet stream
LIFETIME = 600.0  # seconds a stream lasts; the page opens it again (maybe on another worker)
PER_MEMBER = 4  # streams a member keeps per chat in one worker
STREAMS = 4000  # streams of a worker (`JIFEN_APP_STREAMS`)
RETRY_MS = (1000, 4000)  # the browser comes back after a random wait in this range


@dataclass(eq=False)
class Stream:
    """One open page: its member, chat and topic, the newest mark for it, and why it ended."""

    user_id: int
    chat_id: int
    thread_id: int
    mark: str
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    ended: str = ""  # "evicted", "stopping" or "closed" once it ends


class Streams:
    """A worker's open streams, by chat and by member; woken when their chat moves."""

    def __init__(self, env: Env, limit: int = STREAMS, per_member: int = PER_MEMBER) -> None:
        self.env, self.limit, self.per_member = env, limit, per_member
        self.by_chat: dict[int, set[Stream]] = {}
        self.by_member: dict[tuple[int, int], list[Stream]] = {}
        self.count = 0
        self.stopped = False
        self._listening: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._reading: set[int] = set()  # chats whose mark is being read
        self._again: set[int] = set()  # ...and moved again meanwhile

    def full(self) -> bool:
        """No stream more: the limit is reached, or the bot stops."""
        stop = self.env.application.bot_data.get("stop")
        return self.stopped or self.count >= self.limit or (stop is not None and stop.is_set())

    def open(self, user_id: int, chat_id: int, thread_id: int, mark: str) -> Stream:
        """A new stream (the member's oldest in the chat ends if they have too many)."""
        if self._listening is None:
            self._start()
        stream = Stream(user_id, chat_id, thread_id, mark)
        mine = self.by_member.get((user_id, chat_id), [])
        for oldest in mine[: max(0, len(mine) + 1 - self.per_member)]:
            self.end(oldest, "evicted")
        self.by_member.setdefault((user_id, chat_id), []).append(stream)
        self.by_chat.setdefault(chat_id, set()).add(stream)
        self.count += 1
        self._moved(chat_id)  # it may have moved since `mark` was read, unheard by this chat
        return stream

    def end(self, stream: Stream, why: str) -> None:
        """The stream ends (its handler finishes the response); again: nothing."""
        if stream.ended:
            return
        stream.ended = why
        stream.wake.set()
        self.count -= 1
        key = (stream.user_id, stream.chat_id)
        self.by_member[key].remove(stream)
        if not self.by_member[key]:
            del self.by_member[key]
        self.by_chat[stream.chat_id].discard(stream)
        if not self.by_chat[stream.chat_id]:
            del self.by_chat[stream.chat_id]

    async def stop(self) -> None:
        """Every stream ends, none opens again; the listening stops."""
        self.stopped = True
        for streams in list(self.by_chat.values()):
            for stream in list(streams):
                self.end(stream, "stopping")
        others = self._tasks - {asyncio.current_task()}  # (`_stop_on` calls it)
        for task in others:
            task.cancel()
        await asyncio.gather(*others, return_exceptions=True)

    def _start(self) -> None:
        """With the first stream: listen for moved chats, and end every stream on a stop."""
        self._listening = self._spawn(self._listen())
        stop = self.env.application.bot_data.get("stop")
        if stop is not None:
            self._spawn(self._stop_on(stop))

    def _spawn(self, work: Any) -> asyncio.Task[None]:
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _stop_on(self, stop: asyncio.Event) -> None:
        await stop.wait()
        log.info("the bot stops: %d open page stream(s) end", self.count)
        await self.stop()

    async def _listen(self) -> None:
        try:
            async for chat_id in self.env.service.uow.notices.listen():
                for chat in list(self.by_chat) if chat_id is None else (chat_id,):
                    if chat in self.by_chat:
                        self._moved(chat)
        except Exception:
            log.exception("open pages no longer follow their chats")
            raise

    def _moved(self, chat_id: int) -> None:
        if chat_id in self._reading:  # read again once the read under way is done
            self._again.add(chat_id)
            return
        self._reading.add(chat_id)
        self._spawn(self._read(chat_id))

    async def _read(self, chat_id: int) -> None:
        """The chat's mark, read once per topic its pages show; its streams woken."""
        try:
            while True:
                self._again.discard(chat_id)
                for thread_id in {s.thread_id for s in self.by_chat.get(chat_id, ())}:
                    place = Place(chat_id, thread_id)
                    mark = await asyncio.to_thread(self.env.service.app.mark, place)
                    self._tell(self.by_chat.get(chat_id, ()), thread_id, mark)
                if chat_id not in self._again:
                    return
        except Exception as error:  # the database away: the pages learn it at the next move
            log.warning("chat %s moved, but its mark could not be read: %s", chat_id, error)
        finally:
            self._reading.discard(chat_id)

    @staticmethod
    def _tell(streams: Iterable[Stream], thread_id: int, mark: str) -> None:
        for stream in list(streams):
            if stream.thread_id == thread_id and stream.mark != mark:
                stream.mark = mark
                stream.wake.set()


class EventsHandler(LiveHandler):
    """GET: the stream; 503 with Retry-After when the worker holds all it may (the page polls),
    429 past the member's poll limit."""

    streams: Streams
    stream: Stream | None = None

    def initialize(
        self, env: Env, polls: Polls | None = None, streams: Streams | None = None
    ) -> None:
        super().initialize(env, polls)
        self.streams = streams or Streams(env)

    def credentials(self) -> tuple[str, str]:
        headers = self.request.headers
        init = headers.get(INIT_HEADER) or self.get_query_argument("init", "")
        return init, headers.get(CHAT_HEADER) or self.get_query_argument("chat", "")

    async def prepare(self) -> None:
        if self.streams.full():  # before any work: the page polls instead
            self.refuse(503, 60)
            return
        await super().prepare()

    def refuse(self, status: int, seconds: float) -> None:
        self.set_status(status)
        self.set_header("Retry-After", str(max(1, math.ceil(seconds))))
        self.finish()

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        if status_code < 500:  # the query holds launch data: the path only
            log.warning("app stream refused (%s)", status_code)
        self.finish()

    async def get(self) -> None:
        place = self.place
        wait = self.polls.take(place.launch.user_id, place.chat_id)
        if wait or self.streams.full():  # (full: another stream opened meanwhile)
            if wait:
                self.refuse(429, wait)
            else:
                self.refuse(503, 60)
            return
        self.set_header("Content-Type", "text/event-stream")
        self.set_header("X-Accel-Buffering", "no")  # nginx: pass each event on at once
        stream = self.stream = self.streams.open(
            place.launch.user_id, place.chat_id, place.thread_id, self.mark
        )
        expires = place.launch.auth_date + self.env.max_age - self.env.clock()
        try:
            await self._follow(stream, min(LIFETIME, expires))
        except StreamClosedError:
            pass
        finally:
            self.streams.end(stream, "closed")

    async def _follow(self, stream: Stream, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        until = loop.time() + seconds
        self.write(f"retry: {random.randint(*RETRY_MS)}\n\n")
        sent = ""
        while not stream.ended and (left := until - loop.time()) > 0:
            if stream.mark != sent:
                sent = stream.mark
                self.write(f"event: mark\ndata: {sent}\n\n")
            await self.flush()
            if not await woken(stream.wake, min(KEEPALIVE, left)):
                self.write(":\n\n")
        if stream.ended == "evicted":
            self.write("event: evicted\ndata:\n\n")

    def on_connection_close(self) -> None:
        if self.stream is not None:
            self.streams.end(self.stream, "closed")


async def woken(event: asyncio.Event, seconds: float) -> bool:
    """Whether `event` was set within `seconds` (it is cleared again)."""
    try:
        async with asyncio.timeout(seconds):
            await event.wait()
    except TimeoutError:
        return False
    event.clear()
    return True


def routes(env: Env, limit: int = STREAMS) -> list[tuple[str, type[LiveHandler], dict[str, Any]]]:
    streams = Streams(env, limit)
    return [(r"/app/api/events", EventsHandler, {"env": env, "polls": Polls(), "streams": streams})]
