"""Bot API calls captured while a webhook update is handled (see `bot.delivery.outbox`).

The handlers' bot sends through `CapturingRequest`, PTB's network layer with one difference:
inside `capturing()`, the calls that answer an update (messages, edits, a button's answer) are
recorded as PTB encoded them and answered at once with what Telegram would answer (a message
for a message), so a handler cannot tell. Every other call (getChatMember…), and every call
outside `capturing()` or inside `direct()`, goes to the network. `Limiter` keeps the rate
limiter out of the captured calls' way (they are limited when the outbox sends them).
"""

from __future__ import annotations

import base64
import contextlib
import json
import time
from collections.abc import Callable, Coroutine, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from telegram.ext import BaseRateLimiter
from telegram.request import BaseRequest, RequestData

from bot.delivery.passing_on import PassingOn

#: What answers an update; anything else (getChatMember…) is called at once.
CAPTURED = frozenset(
    {
        "sendMessage",
        "sendPhoto",
        "sendDocument",
        "editMessageText",
        "editMessageReplyMarkup",
        "editMessageCaption",
        "answerCallbackQuery",
        "deleteMessage",
    }
)
RETURNS_MESSAGE = frozenset({"sendMessage", "sendPhoto", "sendDocument"})
EDITS = frozenset({"editMessageText", "editMessageReplyMarkup", "editMessageCaption"})


@dataclass(frozen=True, slots=True)
class Call:
    """A call as the outbox stores it: its chat, its Bot API method, its parameters as PTB
    encoded them (`params`: JSON texts by name) and its files (`files`: name → [file name,
    base64 content, MIME type])."""

    chat_id: int | None
    method: str
    payload: dict[str, Any]


_calls: ContextVar[list[Call] | None] = ContextVar("jifen_outbox_calls", default=None)


@contextlib.contextmanager
def capturing() -> Iterator[list[Call]]:
    """The calls made by the code run inside, captured (and answered with stand-ins)."""
    calls: list[Call] = []
    token = _calls.set(calls)
    try:
        yield calls
    finally:
        _calls.reset(token)


@contextlib.contextmanager
def direct() -> Iterator[None]:
    """Calls inside go straight to Telegram even while capturing (a notice that must go out
    though the update failed and its captured calls are dropped)."""
    token = _calls.set(None)
    try:
        yield
    finally:
        _calls.reset(token)


def current() -> list[Call] | None:
    """Where calls go now: a list while capturing, else None (sent at once)."""
    return _calls.get()


def captures(method: str) -> bool:
    """Whether a call of `method` made now is captured."""
    return method in CAPTURED and _calls.get() is not None


def to_call(method: str, data: RequestData | None) -> Call:
    """A call as stored, from what PTB would send."""
    if data is None:
        return Call(None, method, {"params": {}, "files": {}})
    files = {
        name: [part[0], base64.b64encode(_content(part[1])).decode(), part[2]]
        for name, part in data.multipart_data.items()
    }
    chat = data.parameters.get("chat_id")
    chat_id = chat if isinstance(chat, int) and not isinstance(chat, bool) else None
    return Call(chat_id, method, {"params": data.json_parameters, "files": files})


def _content(value: Any) -> bytes:
    return value if isinstance(value, bytes) else bytes(value.read())


def stand_in(call: Call) -> bool | dict[str, Any]:
    """What Telegram answers a captured call: the message sent (its id unknown yet: 0) or
    edited (a message of a chat, by its id), else True."""
    params = call.payload["params"]
    edited = params.get("message_id")
    if call.method not in RETURNS_MESSAGE and not (call.method in EDITS and edited):
        return True
    chat_id = call.chat_id or 0
    return {
        "message_id": int(edited) if call.method in EDITS else 0,
        "date": int(time.time()),
        "chat": {"id": chat_id, "type": "supergroup" if chat_id < 0 else "private"},
    }


class CapturingRequest(PassingOn):
    """The handlers' network layer: `inner`'s, but the calls that answer an update are captured
    while `capturing()` (and answered with a stand-in)."""

    __slots__ = ()

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
        api_method = url.rsplit("/", 1)[-1]
        calls = _calls.get()
        if calls is None or api_method not in CAPTURED:
            return await super().do_request(
                url,
                method,
                request_data,
                read_timeout,
                write_timeout,
                connect_timeout,
                pool_timeout,
            )
        call = to_call(api_method, request_data)
        calls.append(call)
        return 200, json.dumps({"ok": True, "result": stand_in(call)}).encode()


class Limiter(BaseRateLimiter[Any]):
    """The handlers' rate limiter: `inner` (PTB's `AIORateLimiter`) for the calls that go out
    now; a captured call passes at once (it is limited when the outbox sends it)."""

    def __init__(self, inner: BaseRateLimiter[Any]) -> None:
        self.inner = inner

    async def initialize(self) -> None:
        await self.inner.initialize()

    async def shutdown(self) -> None:
        await self.inner.shutdown()

    async def process_request(
        self,
        callback: Callable[..., Coroutine[Any, Any, bool | dict[str, Any] | list[dict[str, Any]]]],
        args: Any,
        kwargs: dict[str, Any],
        endpoint: str,
        data: dict[str, Any],
        rate_limit_args: Any,
    ) -> bool | dict[str, Any] | list[dict[str, Any]]:
        if captures(endpoint):
            return await callback(*args, **kwargs)
        return await self.inner.process_request(
            callback, args, kwargs, endpoint, data, rate_limit_args
        )
