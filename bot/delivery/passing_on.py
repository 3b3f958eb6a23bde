"""A PTB network layer that hands every call on to another (`BaseRequest`, documented API):
the one delegation the bot's request layers share; each changes only `do_request`."""

from __future__ import annotations

from typing import Any

from telegram.request import BaseRequest, RequestData


class PassingOn(BaseRequest):
    """`inner`'s network layer: its timeouts, start and stop, and every call passed on."""

    __slots__ = ("_inner",)

    def __init__(self, inner: BaseRequest) -> None:
        self._inner = inner

    @property
    def inner(self) -> BaseRequest:
        return self._inner

    @property
    def read_timeout(self) -> float | None:
        return self._inner.read_timeout

    async def initialize(self) -> None:
        await self._inner.initialize()

    async def shutdown(self) -> None:
        await self._inner.shutdown()

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
        return await self._inner.do_request(
            url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
        )
