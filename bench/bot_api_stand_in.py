"""A stand-in Bot API for the webhook bench: a raw asyncio HTTP/1.1 server, as cheap as can be.

It runs in the bench driver's event loop (the load generator's too), on the core the measured
bot does not use. It answers what a webhook bot calls at start (getMe, setWebhook,
deleteWebhook, setMyCommands, setChatMenuButton) and while it works (getChatMember: a plain
member; getChat; sendMessage and the edits: Telegram-shaped results), anything else
``{"ok": true, "result": true}``. Each ``sendMessage`` is recorded: when its request arrived
(``time.monotonic()``, the clock the load generator uses), the chat and the text.

Bodies are form-encoded (what PTB sends: every value a string, objects as JSON) or JSON; keep-
alive connections, ``Content-Length`` bodies only (httpx sends nothing else for these calls).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

JSON = dict[str, Any]
BOT_ID = 123
BOT_USER: JSON = {
    "id": BOT_ID,
    "is_bot": True,
    "first_name": "Bench",
    "username": "bench_bot",
    "can_join_groups": True,
    "can_read_all_group_messages": False,
    "supports_inline_queries": False,
    "can_connect_to_business": False,
    "has_main_web_app": False,
}
MAX_HEAD = 16_384


@dataclass(frozen=True)
class Sent:
    """One sendMessage as it arrived."""

    at: float  # time.monotonic() once its whole request was read
    chat_id: int
    text: str


@dataclass
class Calls:
    """What the stand-in was asked: every sendMessage, and a count by method."""

    sent: list[Sent] = field(default_factory=list)
    by_method: dict[str, int] = field(default_factory=dict)
    webhooks_set: int = 0
    errors: list[str] = field(default_factory=list)  # requests the stand-in could not answer

    def clear(self) -> None:
        self.sent.clear()
        self.errors.clear()
        self.by_method.clear()
        self.webhooks_set = 0


def _params(content_type: str, body: bytes) -> JSON:
    if not body:
        return {}
    if content_type.startswith("application/json"):
        parsed = json.loads(body)
        return parsed if isinstance(parsed, dict) else {}
    if content_type.startswith("multipart/"):
        return {}  # files: nothing this bench sends; the call is still answered
    return dict(parse_qsl(body.decode(), keep_blank_values=True))


def _int(value: Any) -> int:
    return int(value) if value not in (None, "") else 0


def _chat(chat_id: int) -> JSON:
    if chat_id < 0:
        return {"id": chat_id, "type": "supergroup", "title": f"chat {chat_id}"}
    return {"id": chat_id, "type": "private", "first_name": "someone"}


class StandIn:
    """The Bot API's answers, and the record of sendMessage."""

    def __init__(self) -> None:
        self.calls = Calls()
        self._message_id = 0
        self.handlers: dict[str, Callable[[JSON], Any]] = {
            "getme": lambda _p: BOT_USER,
            "getchatmember": self._member,
            "getchat": self._get_chat,
            "sendmessage": self._send_message,
            "editmessagetext": self._edit,
            "editmessagereplymarkup": self._edit,
            "getwebhookinfo": lambda _p: {
                "url": "",
                "has_custom_certificate": False,
                "pending_update_count": 0,
            },
            "getmycommands": lambda _p: [],
        }

    def answer(self, method: str, params: JSON) -> JSON:
        name = method.lower()
        self.calls.by_method[method] = self.calls.by_method.get(method, 0) + 1
        if name == "setwebhook":
            self.calls.webhooks_set += 1
        handler = self.handlers.get(name)
        return {"ok": True, "result": True if handler is None else handler(params)}

    def _next_id(self) -> int:
        self._message_id += 1
        return self._message_id

    def _member(self, params: JSON) -> JSON:
        user_id = _int(params.get("user_id"))
        user = {"id": user_id, "is_bot": False, "first_name": f"user {user_id}"}
        return {"status": "member", "user": user}

    def _get_chat(self, params: JSON) -> JSON:
        gifts = ("unlimited_gifts", "limited_gifts", "unique_gifts", "premium_subscription")
        return _chat(_int(params.get("chat_id"))) | {
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": dict.fromkeys(gifts, False),
        }

    def _message(self, chat_id: int, text: str, message_id: int | None = None) -> JSON:
        return {
            "message_id": self._next_id() if message_id is None else message_id,
            "date": int(time.time()),
            "chat": _chat(chat_id),
            "from": {"id": BOT_ID, "is_bot": True, "first_name": "Bench", "username": "bench_bot"},
            "text": text,
        }

    def _send_message(self, params: JSON) -> JSON:
        chat_id, text = _int(params.get("chat_id")), str(params.get("text", ""))
        self.calls.sent.append(Sent(time.monotonic(), chat_id, text))
        return self._message(chat_id, text)

    def _edit(self, params: JSON) -> JSON | bool:
        if params.get("inline_message_id"):
            return True
        chat_id = _int(params.get("chat_id"))
        return self._message(chat_id, str(params.get("text", "")), _int(params.get("message_id")))


class _Connection(asyncio.Protocol):
    def __init__(self, api: StandIn) -> None:
        self.api = api
        self.buffer = bytearray()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while self._one_request():
            pass

    def _one_request(self) -> bool:
        """Answer the request at the head of the buffer if it is all there."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            if len(self.buffer) > MAX_HEAD:
                self._fail(b"431 Request Header Fields Too Large")
            return False
        head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        parts = head[0].split(" ")
        headers = {}
        for line in head[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        if "chunked" in headers.get("transfer-encoding", ""):
            self._fail(b"411 Length Required")
            return False
        length = int(headers.get("content-length", "0"))
        if len(self.buffer) < end + 4 + length:
            return False
        body = bytes(self.buffer[end + 4 : end + 4 + length])
        del self.buffer[: end + 4 + length]
        path = parts[1] if len(parts) > 1 else "/"
        method = path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        try:
            result = self.api.answer(method, _params(headers.get("content-type", ""), body))
            status, payload = b"200 OK", json.dumps(result).encode()
        except Exception as err:  # a bench bug: say so to the client, loudly
            self.api.calls.errors.append(f"{method}: {err!r}")
            status = b"500 Internal Server Error"
            error = {"ok": False, "error_code": 500, "description": repr(err)}
            payload = json.dumps(error).encode()
        assert self.transport is not None
        self.transport.write(
            b"HTTP/1.1 "
            + status
            + b"\r\nContent-Type: application/json\r\nContent-Length: "
            + str(len(payload)).encode()
            + b"\r\n\r\n"
            + payload
        )
        return True

    def _fail(self, status: bytes) -> None:
        assert self.transport is not None
        self.transport.write(b"HTTP/1.1 " + status + b"\r\nContent-Length: 0\r\n\r\n")
        self.transport.close()
        self.buffer.clear()


async def serve(api: StandIn, host: str = "127.0.0.1", port: int = 0) -> asyncio.Server:
    """The stand-in listening (port 0: a free one, see ``server.sockets[0].getsockname()``)."""
    loop = asyncio.get_running_loop()
    return await loop.create_server(lambda: _Connection(api), host, port)
