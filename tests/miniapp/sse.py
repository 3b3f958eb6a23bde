"""A test's client of `/app/api/events`: the stream read event by event, as a browser's
EventSource would (`event:`/`data:` lines up to a blank line; a line starting with `:` is a
comment)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from urllib.parse import urlencode

import httpx

WAIT = 5.0  # seconds an expected event may take at most (the target is 1 s)


@dataclass
class Events:
    """An open stream's response and what it sent so far."""

    response: httpx.Response
    lines: AsyncIterator[str]
    comments: int = 0
    seen: list[tuple[str, str]] = field(default_factory=list)

    async def next(self, timeout: float = WAIT) -> tuple[str, str] | None:
        """The next event (its name and data), None when the stream ended."""
        async with asyncio.timeout(timeout):
            name, data = "message", ""
            async for line in self.lines:
                if line.startswith(":"):
                    self.comments += 1
                elif line.startswith("event:"):
                    name = line.partition(":")[2].strip()
                elif line.startswith("data:"):
                    data = line.partition(":")[2].strip()
                elif line == "" and (name != "message" or data):
                    self.seen.append((name, data))
                    return name, data
            return None

    async def mark(self, timeout: float = WAIT) -> str:
        """The next mark it sends."""
        event = await self.next(timeout)
        assert event is not None and event[0] == "mark", event
        return event[1]

    async def ended(self, timeout: float = WAIT) -> list[tuple[str, str]]:
        """The events until the stream ends (it must, within `timeout`)."""
        rest = []
        while (event := await self.next(timeout)) is not None:
            rest.append(event)
        return rest


def query(token: str, init_data: str) -> str:
    """The stream's URL as the page opens it (EventSource sends no headers)."""
    return "/app/api/events?" + urlencode({"chat": token, "init": init_data})


@contextlib.asynccontextmanager
async def stream(
    http: httpx.AsyncClient, url: str, headers: dict[str, str] | None = None
) -> AsyncIterator[Events]:
    """The stream at `url` while the block runs (its status is the caller's to check)."""
    async with http.stream("GET", url, headers=headers, timeout=httpx.Timeout(30, read=60)) as r:
        yield Events(r, r.aiter_lines())
