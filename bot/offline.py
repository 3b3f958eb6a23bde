"""A PTB request layer that answers every Bot API call from a ``FakeBotApi`` (no network)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any

from telegram.request import BaseRequest, RequestData

from bot.fake_api import JSON, FakeApiError, FakeBotApi, UploadedFile

MAX_POLL_SECONDS = 50.0


def request_params(request_data: RequestData | None) -> JSON:
    """The call's parameters as sent over HTTP (JSON-encoded strings) plus uploaded files."""
    if request_data is None:
        return {}
    params: JSON = dict(request_data.json_parameters)
    for name, (filename, content, mime_type) in request_data.multipart_data.items():
        data = content if isinstance(content, bytes) else content.read()
        params[name] = UploadedFile(filename, data, mime_type)
    return params


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


class OfflineRequest(BaseRequest):
    """Answers PTB's requests from a ``FakeBotApi``: getUpdates long-polls, files download.

    Use one instance per role (``.request(...)`` and ``.get_updates_request(...)``) over the
    same api. ``initialize``/``shutdown`` hold no resources, so restarting is fine.
    """

    __slots__ = ("_api", "_read_timeout")

    def __init__(self, api: FakeBotApi, *, read_timeout: float | None = 5.0) -> None:
        self._api = api
        self._read_timeout = read_timeout

    @property
    def api(self) -> FakeBotApi:
        """The fake Bot API answering the calls."""
        return self._api

    @property
    def read_timeout(self) -> float | None:
        """Default read timeout; PTB adds the getUpdates ``timeout`` to it."""
        return self._read_timeout

    async def initialize(self) -> None:
        """Nothing to set up."""

    async def shutdown(self) -> None:
        """Nothing to release."""

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
        """Answer a call: the Bot API method is the URL's last path segment."""
        file_path = file_path_of(url)
        if file_path is not None:
            return self._download(file_path)
        api_method = url.rstrip("/").rsplit("/", 1)[-1]
        params = request_params(request_data)
        if api_method.lower() == "getupdates":
            code, body = await long_poll(self._api, params)
        else:
            code, body = self._api.respond(api_method, params)
        return code, json.dumps(body).encode()

    def _download(self, file_path: str) -> tuple[int, bytes]:
        try:
            return 200, self._api.file_content(file_path)
        except FakeApiError as error:
            return error.error_code, json.dumps(error.to_json()).encode()
