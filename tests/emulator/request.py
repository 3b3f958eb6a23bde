"""PTB's network layer answered in-process by the emulator (getUpdates long-polls too)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from telegram.request import BaseRequest, RequestData

from bot.console.offline import JSON, OfflineRequest
from tests.emulator.api import FakeApiError, FakeBotApi

MAX_POLL_SECONDS = 50.0


async def long_poll(api: FakeBotApi, params: JSON) -> tuple[int, JSON]:
    """getUpdates that waits up to ``timeout`` seconds for an update, like Telegram."""
    loop = asyncio.get_running_loop()
    woken = asyncio.Event()

    def wake(kind: str) -> None:
        if kind == "update":
            loop.call_soon_threadsafe(woken.set)

    timeout = min(float(params.get("timeout") or 0), MAX_POLL_SECONDS)
    deadline = loop.time() + timeout
    api.add_listener(wake)
    try:
        while True:
            woken.clear()
            code, body = api.respond("getUpdates", params)
            remaining = deadline - loop.time()
            if code != 200 or body["result"] or remaining <= 0:
                return code, body
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woken.wait(), remaining)
    finally:
        api.remove_listener(wake)


def file_path_of(url: str) -> str | None:
    """The ``file_path`` of a file download URL (``.../file/bot<token>/<path>``), else None."""
    if "/file/bot" not in url:
        return None
    return url.split("/file/bot", 1)[1].split("/", 1)[-1]


class EmulatorRequest(OfflineRequest):
    """``OfflineRequest`` over a ``FakeBotApi``; one instance per role (``.request(...)`` and
    ``.get_updates_request(...)``) over the same api."""

    __slots__ = ("_emulator",)

    def __init__(self, api: FakeBotApi) -> None:
        super().__init__(api)
        self._emulator = api

    @property
    def api(self) -> FakeBotApi:
        """The emulator answering the calls."""
        return self._emulator

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        """A file download, or a Bot API call."""
        file_path = file_path_of(url)
        if file_path is None:
            return await super().do_request(url, method, request_data)
        try:
            return 200, self._emulator.file_content(file_path)
        except FakeApiError as error:
            return error.error_code, json.dumps(error.to_json()).encode()

    async def answer(self, method: str, params: JSON) -> tuple[int, JSON]:
        """getUpdates long-polls; every other call is answered at once."""
        if method.lower() == "getupdates":
            return await long_poll(self._emulator, params)
        return self._emulator.respond(method, params)
