"""A Bot API emulator for end-to-end tests: one ``FakeBotApi`` served over HTTP by tornado.

Run ``python -m tests.emulator.server --port N [--host 127.0.0.1]`` (``--port 0`` picks a free
port); the first line on stdout is ``EMULATOR READY http://HOST:PORT``. It serves
``GET/POST /bot<token>/<method>`` (JSON, form and multipart bodies), long-polls getUpdates,
pushes updates to a webhook (secret header, retried until a 2xx answer, in order per chat) and
answers the test controls under ``/_test/``. ``EmulatorProcess`` runs it as a subprocess;
``EmulatorClient``/``AsyncEmulatorClient`` drive the controls.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar, cast

import httpx
import tornado.httputil
import tornado.iostream
import tornado.netutil
import tornado.web
from tornado.httpserver import HTTPServer

from bot.console.offline import UploadedFile
from tests.emulator.api import (
    JSON,
    Chat,
    FakeApiError,
    FakeBotApi,
    User,
    WebhookConfig,
    outbox_json,
    update_chat_id,
)

READY = "EMULATOR READY"
REPO_ROOT = Path(__file__).resolve().parents[2]
MAX_POLL_SECONDS = 50.0
CONFLICT = (
    "Conflict: terminated by other getUpdates request; "
    "make sure that only one bot instance is running"
)
T = TypeVar("T")
_BAD_INPUT = (ValueError, KeyError, TypeError)
log = logging.getLogger("emulator")


class _Changes:
    """Broadcast: every waiter wakes when the api changes."""

    def __init__(self) -> None:
        self._event = asyncio.Event()

    def notify(self, _kind: str = "") -> None:
        """Wake everyone waiting now."""
        self._event.set()
        self._event = asyncio.Event()

    async def wait_until(self, check: Callable[[], T | None], timeout: float) -> T | None:
        """``check()`` once it is not None, or None after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            event = self._event
            result = check()
            remaining = deadline - time.monotonic()
            if result is not None or remaining <= 0:
                return result
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(event.wait(), remaining)


class _WebhookPusher:
    """Delivers pending updates to the webhook like Telegram: retried, in order per chat."""

    def __init__(self, api: FakeBotApi, changes: _Changes, retry_delay: float) -> None:
        self.api = api
        self.changes = changes
        self.retry_delay = retry_delay
        self._inflight: set[int] = set()
        self._attempts: dict[int, int] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._http = httpx.AsyncClient(timeout=httpx.Timeout(30.0, connect=5.0))

    async def run(self) -> None:
        """Launch deliveries whenever something changes."""
        while True:
            await self.changes.wait_until(self._launch, 1.0)

    async def close(self) -> None:
        """Cancel deliveries in flight and close the HTTP client."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._http.aclose()

    def _launch(self) -> None:
        hook = self.api.webhook
        if hook is None:
            return
        blocked: set[int] = set()
        for update in self.api.pending_updates():
            update_id, chat_id = update["update_id"], update_chat_id(update)
            if not self.api.is_allowed(update):
                self.api.confirm_update(update_id)
                continue
            if chat_id in blocked or len(self._inflight) >= hook.max_connections:
                continue
            if chat_id is not None:
                blocked.add(chat_id)
            if update_id not in self._inflight:
                self._inflight.add(update_id)
                task = asyncio.create_task(self._deliver(update, hook))
                self._tasks.add(task)
                task.add_done_callback(self._tasks.discard)

    async def _deliver(self, update: JSON, hook: WebhookConfig) -> None:
        update_id = update["update_id"]
        try:
            error = await self._push(update, hook)
            if error is None:
                self.api.confirm_update(update_id)
                self._attempts.pop(update_id, None)
                return
            log.info("webhook delivery of %s failed: %s", update_id, error)
            self.api.record_webhook_error(error)
            attempt = self._attempts[update_id] = self._attempts.get(update_id, 0) + 1
            await asyncio.sleep(min(self.retry_delay * 2 ** (attempt - 1), 5.0))
        finally:
            self._inflight.discard(update_id)
            self.changes.notify()

    async def _push(self, update: JSON, hook: WebhookConfig) -> str | None:
        headers = {"Content-Type": "application/json"}
        if hook.secret_token:
            headers["X-Telegram-Bot-Api-Secret-Token"] = hook.secret_token
        try:
            response = await self._http.post(hook.url, content=json.dumps(update), headers=headers)
        except httpx.HTTPError as error:
            return f"Connection failed: {error!r}"
        if response.is_success:
            return None
        return f"Wrong response from the webhook: {response.status_code} {response.reason_phrase}"


# ---------------------------------------------------------------- request parsing


def _request_params(request: tornado.httputil.HTTPServerRequest) -> JSON:
    """Query, JSON/form/multipart body and files of a Bot API request."""
    params: JSON = {k: v[-1].decode() for k, v in request.query_arguments.items()}
    content_type = request.headers.get("Content-Type", "")
    if content_type.startswith("application/json") and request.body:
        body = json.loads(request.body)
        if not isinstance(body, dict):
            raise ValueError("the JSON body must be an object")
        params.update(body)
    else:
        params.update({k: v[-1].decode() for k, v in request.body_arguments.items()})
    for name, files in request.files.items():
        part = files[-1]
        params[name] = UploadedFile(part.filename, part.body, part.content_type)
    return params


def _chat_arg(value: Any) -> Chat | int:
    """A chat given as an id or a Bot API ``Chat`` dict."""
    return Chat.from_dict(value) if isinstance(value, dict) else int(value)


def _user_arg(api: FakeBotApi, value: Any) -> User:
    """A user given as a Bot API ``User`` dict, a known id, or a name (``User.named``)."""
    if isinstance(value, dict):
        return User.from_dict(value)
    if isinstance(value, str) and not value.lstrip("-").isdigit():
        return User.named(value)
    return api.users.get(int(value)) or User(int(value), f"User {value}")


# ---------------------------------------------------------------- handlers


class _Handler(tornado.web.RequestHandler):
    """Shared plumbing: the server, JSON replies, JSON bodies."""

    server: EmulatorServer

    def initialize(self, server: EmulatorServer) -> None:
        """Tornado hook: keep the server."""
        self.server = server

    def reply(self, code: int, body: Any) -> None:
        """Finish with a JSON body."""
        self.set_status(code)
        self.set_header("Content-Type", "application/json")
        with contextlib.suppress(tornado.iostream.StreamClosedError):
            self.finish(json.dumps(body))

    def body(self) -> JSON:
        """The JSON object in the request body."""
        data = json.loads(self.request.body or b"{}")
        if not isinstance(data, dict):
            raise ValueError("the JSON body must be an object")
        return data

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors as JSON; bad test input (ValueError, KeyError, TypeError) answers 400."""
        error = kwargs.get("exc_info", (None, None))[1]
        code = 400 if isinstance(error, _BAD_INPUT) else status_code
        self.reply(code, {"ok": False, "error": repr(error) if error else self._reason})

    def log_exception(self, typ: Any, value: Any, tb: Any) -> None:
        """Bad test input is the caller's problem: not logged."""
        if not isinstance(value, _BAD_INPUT):
            super().log_exception(typ, value, tb)


class BotApiHandler(_Handler):
    """``/bot<token>/<method>``: the Bot API."""

    async def get(self, token: str, method: str) -> None:
        """A call with query parameters."""
        await self.post(token, method)

    async def post(self, token: str, method: str) -> None:
        """A call with a JSON, form or multipart body."""
        if self.server.token is not None and token != self.server.token:
            self.reply(401, FakeApiError(401, "Unauthorized").to_json())
            return
        params = _request_params(self.request)
        if method.lower() == "getupdates":
            code, body = await self.server.get_updates(params)
        else:
            code, body = self.server.api.respond(method, params)
        self.reply(code, body)


class FileHandler(_Handler):
    """``/file/bot<token>/<file_path>``: downloads of stored files."""

    def get(self, token: str, file_path: str) -> None:
        """The file's bytes."""
        try:
            content = self.server.api.file_content(file_path)
        except FakeApiError as error:
            self.reply(error.error_code, error.to_json())
            return
        self.set_header("Content-Type", "application/octet-stream")
        self.finish(content)


class SendHandler(_Handler):
    """``POST /_test/send`` {chat, user, text, thread_id?, reply_to?} → the update."""

    def post(self) -> None:
        """Enqueue a user's text message."""
        data, api = self.body(), self.server.api
        update = api.send_text(
            _chat_arg(data["chat"]),
            _user_arg(api, data["user"]),
            str(data["text"]),
            data.get("thread_id"),
            reply_to=data.get("reply_to"),
        )
        self.reply(200, update)


class PressHandler(_Handler):
    """``POST /_test/press`` {chat, user, message_id, data} → the update."""

    def post(self) -> None:
        """Enqueue a callback query."""
        data, api = self.body(), self.server.api
        user = _user_arg(api, data["user"])
        update = api.press_button(
            _chat_arg(data["chat"]), user, int(data["message_id"]), str(data["data"])
        )
        self.reply(200, update)


class AnonymousHandler(_Handler):
    """``POST /_test/anonymous`` {chat, text, thread_id?} → the update."""

    def post(self) -> None:
        """Enqueue an anonymous admin's message."""
        data = self.body()
        update = self.server.api.send_as_anonymous_admin(
            _chat_arg(data["chat"]), str(data["text"]), data.get("thread_id")
        )
        self.reply(200, update)


class MigrateHandler(_Handler):
    """``POST /_test/migrate`` {old_chat_id, new_chat_id} → the migrate_to update."""

    def post(self) -> None:
        """Upgrade a group to a supergroup."""
        data = self.body()
        update = self.server.api.migrate_group(int(data["old_chat_id"]), int(data["new_chat_id"]))
        self.reply(200, update)


class MembersHandler(_Handler):
    """``POST /_test/members`` {chat, user, status} or {"members": [...]}."""

    def post(self) -> None:
        """Set member statuses (registering unknown chats)."""
        data, api = self.body(), self.server.api
        for item in data.get("members", [data]):
            chat = _chat_arg(item.get("chat", item.get("chat_id")))
            if isinstance(chat, int):
                chat = api.chats.get(chat) or Chat(chat, "supergroup", title=f"Group {chat}")
            api.add_chat(chat)
            api.set_member(chat.id, _user_arg(api, item["user"]), str(item["status"]))
        self.reply(200, {"ok": True})


class EphemeralHandler(_Handler):
    """``POST /_test/ephemeral`` {supported?, refused?: [user ids]}: answer ephemeral messages
    as a server without them, or as those users' older clients, would."""

    def post(self) -> None:
        """Set what the emulator does with `ephemeral_message_parameters`."""
        data, api = self.body(), self.server.api
        api.ephemeral_supported = bool(data.get("supported", True))
        api.ephemeral_refused = {int(uid) for uid in data.get("refused", [])}
        self.reply(200, {"ok": True})


class GuestHandler(_Handler):
    """``POST /_test/guest`` {chat, user, text} → the guest_message update (the bot is no
    member of the chat: a member mentioned it in guest mode)."""

    def post(self) -> None:
        """Enqueue a guest message."""
        data, api = self.body(), self.server.api
        chat = _chat_arg(data["chat"])
        if isinstance(chat, int):
            chat = api.chats.get(chat) or Chat(chat, "supergroup", title=f"Group {chat}")
        update = api.guest_message(chat, _user_arg(api, data["user"]), str(data["text"]))
        self.reply(200, update)


class RedeliverHandler(_Handler):
    """``POST /_test/redeliver`` {update}: the same update enqueued again."""

    def post(self) -> None:
        """Enqueue an update once more."""
        self.server.api.redeliver(self.body()["update"])
        self.reply(200, {"ok": True})


class RichHandler(_Handler):
    """``POST /_test/rich`` {on}: whether sendRichMessage is known (Bot API 10.1)."""

    def post(self) -> None:
        """Switch Rich Messages on or off."""
        self.server.api.rich_messages = bool(self.body()["on"])
        self.reply(200, {"ok": True})


class OutboxHandler(_Handler):
    """``GET /_test/outbox?chat_id=&since=&wait=`` → entries (waits up to ``wait`` s)."""

    async def get(self) -> None:
        """Outbox entries after ``since``, once there is one or ``wait`` passed."""
        chat_arg = self.get_argument("chat_id", "")
        chat_id = int(chat_arg) if chat_arg else None
        since = int(self.get_argument("since", "0"))
        wait = min(float(self.get_argument("wait", "0")), 120.0)
        api = self.server.api
        entries = await self.server.changes.wait_until(
            lambda: api.outbox_since(since, chat_id) or None, wait
        )
        self.reply(200, outbox_json(entries or []))


class AnswersHandler(_Handler):
    """``GET /_test/answers?since=`` → callback query answers."""

    def get(self) -> None:
        """Answers after ``since``."""
        since = int(self.get_argument("since", "0"))
        self.reply(200, [a.to_json() for a in self.server.api.answers_since(since)])


class HealthHandler(_Handler):
    """``GET /_test/health`` → counters."""

    def get(self) -> None:
        """Liveness and a few counters."""
        api = self.server.api
        self.reply(
            200,
            {
                "ok": True,
                "last_seq": api.last_seq,
                "pending_updates": len(api.pending_updates()),
                "webhook": api.webhook.url if api.webhook else None,
            },
        )


# ---------------------------------------------------------------- server


class EmulatorServer:
    """The emulator on the running event loop (usable in-process, too)."""

    def __init__(
        self, api: FakeBotApi | None = None, *, token: str | None = None, retry_delay: float = 0.25
    ) -> None:
        self.api = api or FakeBotApi()
        self.token = token
        self.changes = _Changes()
        self.host = "127.0.0.1"
        self.port = 0
        self._retry_delay = retry_delay
        self._poll_generation = 0
        self._http: HTTPServer | None = None
        self._pusher: _WebhookPusher | None = None
        self._pusher_task: asyncio.Task[None] | None = None

    @property
    def base_url(self) -> str:
        """``http://host:port``."""
        return f"http://{self.host}:{self.port}"

    def application(self) -> tornado.web.Application:
        """The tornado routes."""
        arg = {"server": self}
        routes: list[tuple[str, type[_Handler]]] = [
            (r"/bot([^/]+)/([A-Za-z_]+)/?", BotApiHandler),
            (r"/file/bot([^/]+)/(.+)", FileHandler),
            (r"/_test/send", SendHandler),
            (r"/_test/press", PressHandler),
            (r"/_test/anonymous", AnonymousHandler),
            (r"/_test/migrate", MigrateHandler),
            (r"/_test/members", MembersHandler),
            (r"/_test/ephemeral", EphemeralHandler),
            (r"/_test/guest", GuestHandler),
            (r"/_test/redeliver", RedeliverHandler),
            (r"/_test/rich", RichHandler),
            (r"/_test/outbox", OutboxHandler),
            (r"/_test/answers", AnswersHandler),
            (r"/_test/health", HealthHandler),
        ]
        return tornado.web.Application([(path, cls, arg) for path, cls in routes])

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        """Listen (port 0: a free one) and start the webhook pusher; returns the port."""
        sockets = tornado.netutil.bind_sockets(port, address=host)
        self.host, self.port = host, sockets[0].getsockname()[1]
        self._http = HTTPServer(self.application())
        self._http.add_sockets(sockets)
        self.api.add_listener(self.changes.notify)
        self._pusher = _WebhookPusher(self.api, self.changes, self._retry_delay)
        self._pusher_task = asyncio.create_task(self._pusher.run())
        return self.port

    async def stop(self) -> None:
        """Stop listening and pushing."""
        self.api.remove_listener(self.changes.notify)
        if self._pusher_task is not None:
            self._pusher_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._pusher_task
        if self._pusher is not None:
            await self._pusher.close()
        if self._http is not None:
            self._http.stop()
            await self._http.close_all_connections()

    async def get_updates(self, params: JSON) -> tuple[int, JSON]:
        """getUpdates with long polling; a newer getUpdates ends this one with 409."""
        self._poll_generation += 1
        generation = self._poll_generation
        self.changes.notify()

        def check() -> tuple[int, JSON] | None:
            if generation != self._poll_generation:
                return 409, FakeApiError(409, CONFLICT).to_json()
            code, body = self.api.respond("getUpdates", params)
            return (code, body) if code != 200 or body["result"] else None

        timeout = min(float(params.get("timeout") or 0), MAX_POLL_SECONDS)
        found = await self.changes.wait_until(check, timeout)
        return found or self.api.respond("getUpdates", params)


# ---------------------------------------------------------------- clients


def _jsonable(value: Any) -> Any:
    return value.to_dict() if isinstance(value, User | Chat) else value


def _chat_id(chat: Chat | int | JSON) -> int:
    if isinstance(chat, Chat):
        return chat.id
    return int(chat["id"]) if isinstance(chat, dict) else int(chat)


def _send_body(chat: Any, user: Any, text: str, thread_id: int | None) -> JSON:
    body = {"chat": _jsonable(chat), "user": _jsonable(user), "text": text}
    return body | ({"thread_id": thread_id} if thread_id is not None else {})


def _press_body(chat: Any, user: Any, message_id: int, data: str) -> JSON:
    return {
        "chat": _jsonable(chat),
        "user": _jsonable(user),
        "message_id": message_id,
        "data": data,
    }


def _outbox_query(chat: Any, since: int, wait: float = 0.0) -> dict[str, Any]:
    query: dict[str, Any] = {"since": since, "wait": wait}
    return query | ({"chat_id": _chat_id(chat)} if chat is not None else {})


def _replies(entries: list[JSON], chat: Any, timeout: float) -> list[JSON]:
    if not entries:
        raise TimeoutError(f"no bot message in chat {_chat_id(chat)} within {timeout} s")
    return entries


class EmulatorClient:
    """Blocking client of the ``/_test/`` controls (httpx). Chats/users: ids, dicts, dataclasses;
    users also by name (``User.named``)."""

    def __init__(self, base_url: str, *, timeout: float = 30.0) -> None:
        self._http = httpx.Client(base_url=base_url, timeout=timeout)

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        """One control request; the decoded JSON answer (HTTPStatusError on errors)."""
        response = self._http.request(method, path, **kwargs)
        response.raise_for_status()
        return response.json()

    def send(self, chat: Any, user: Any, text: str, thread_id: int | None = None) -> JSON:
        """A user's text message; returns the update."""
        return cast(
            JSON, self._call("POST", "/_test/send", json=_send_body(chat, user, text, thread_id))
        )

    def press(self, chat: Any, user: Any, message_id: int, data: str) -> JSON:
        """Press a button (callback_data ``data``) of a bot message; returns the update."""
        return cast(
            JSON, self._call("POST", "/_test/press", json=_press_body(chat, user, message_id, data))
        )

    def set_member(self, chat: Any, user: Any, status: str) -> None:
        """Set a member's status in a chat."""
        body = {"chat": _jsonable(chat), "user": _jsonable(user), "status": status}
        self._call("POST", "/_test/members", json=body)

    def ephemeral(self, *, supported: bool = True, refused: tuple[int, ...] = ()) -> None:
        """Ephemeral messages taken (the default), or refused by the server or for `refused`."""
        body = {"supported": supported, "refused": list(refused)}
        self._call("POST", "/_test/ephemeral", json=body)

    def outbox(self, chat_id: Any = None, since: int = 0) -> list[JSON]:
        """The bot's sent/edited/deleted messages after ``since`` (``seq``)."""
        return cast(
            list[JSON], self._call("GET", "/_test/outbox", params=_outbox_query(chat_id, since))
        )

    def answers(self, since: int = 0) -> list[JSON]:
        """Callback query answers after ``since``."""
        return cast(list[JSON], self._call("GET", "/_test/answers", params={"since": since}))

    def health(self) -> JSON:
        """Liveness and counters (``last_seq``, ``pending_updates``, ``webhook``)."""
        return cast(JSON, self._call("GET", "/_test/health"))

    def guest(self, chat: Any, user: Any, text: str) -> JSON:
        """A guest message (`@jifen_bot …` in a chat without the bot); returns the update."""
        body = {"chat": _jsonable(chat), "user": _jsonable(user), "text": text}
        return cast(JSON, self._call("POST", "/_test/guest", json=body))

    def redeliver(self, update: JSON) -> None:
        """Enqueue ``update`` once more (as Telegram redelivers one)."""
        self._call("POST", "/_test/redeliver", json={"update": update})

    def rich(self, on: bool) -> None:
        """Rich Messages (sendRichMessage) known or not by the emulator."""
        self._call("POST", "/_test/rich", json={"on": on})

    def last_seq(self) -> int:
        """The current outbox position, to pass as ``since``."""
        return int(self.health()["last_seq"])

    def wait_for_reply(self, chat: Any, since: int, timeout: float = 10.0) -> list[JSON]:
        """The bot's messages in ``chat`` after ``since`` once there is one; TimeoutError."""
        query = _outbox_query(chat, since, timeout)
        entries: list[JSON] = self._call("GET", "/_test/outbox", params=query, timeout=timeout + 10)
        return _replies(entries, chat, timeout)

    def close(self) -> None:
        """Close the HTTP client."""
        self._http.close()

    def __enter__(self) -> EmulatorClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncEmulatorClient:
    """``EmulatorClient`` for async code (same methods, awaitable)."""

    def __init__(self, base_url: str, *, timeout: float = 30.0) -> None:
        self._http = httpx.AsyncClient(base_url=base_url, timeout=timeout)

    async def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        """One control request; the decoded JSON answer (HTTPStatusError on errors)."""
        response = await self._http.request(method, path, **kwargs)
        response.raise_for_status()
        return response.json()

    async def send(self, chat: Any, user: Any, text: str, thread_id: int | None = None) -> JSON:
        """A user's text message; returns the update."""
        return cast(
            JSON,
            await self._call("POST", "/_test/send", json=_send_body(chat, user, text, thread_id)),
        )

    async def press(self, chat: Any, user: Any, message_id: int, data: str) -> JSON:
        """Press a button of a bot message; returns the update."""
        body = _press_body(chat, user, message_id, data)
        return cast(JSON, await self._call("POST", "/_test/press", json=body))

    async def set_member(self, chat: Any, user: Any, status: str) -> None:
        """Set a member's status in a chat."""
        body = {"chat": _jsonable(chat), "user": _jsonable(user), "status": status}
        await self._call("POST", "/_test/members", json=body)

    async def outbox(self, chat_id: Any = None, since: int = 0) -> list[JSON]:
        """The bot's sent/edited/deleted messages after ``since``."""
        return cast(
            list[JSON],
            await self._call("GET", "/_test/outbox", params=_outbox_query(chat_id, since)),
        )

    async def health(self) -> JSON:
        """Liveness and counters."""
        return cast(JSON, await self._call("GET", "/_test/health"))

    async def last_seq(self) -> int:
        """The current outbox position."""
        return int((await self.health())["last_seq"])

    async def wait_for_reply(self, chat: Any, since: int, timeout: float = 10.0) -> list[JSON]:
        """The bot's messages in ``chat`` after ``since`` once there is one; TimeoutError."""
        query = _outbox_query(chat, since, timeout)
        entries = await self._call("GET", "/_test/outbox", params=query, timeout=timeout + 10)
        return _replies(entries, chat, timeout)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._http.aclose()

    async def __aenter__(self) -> AsyncEmulatorClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


# ---------------------------------------------------------------- subprocess


def _child_env() -> dict[str, str]:
    """The environment with the repository first on PYTHONPATH."""
    paths = [str(REPO_ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
    return os.environ | {"PYTHONPATH": os.pathsep.join(paths)}


class EmulatorProcess:
    """``python -m tests.emulator.server --port 0`` as a subprocess; always stop() it."""

    def __init__(
        self, *, host: str = "127.0.0.1", token: str | None = None, args: tuple[str, ...] = ()
    ) -> None:
        self.host = host
        self.port = 0
        self._command = [sys.executable, "-m", "tests.emulator.server", "--host", host]
        self._command += ["--port", "0"]
        self._command += [*(["--token", token] if token else []), *args]
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        """``http://host:port`` (controls under ``/_test/``)."""
        return f"http://{self.host}:{self.port}"

    @property
    def api_base_url(self) -> str:
        """The Bot API base URL for PTB (``base_url=``) / ``TELEGRAM_API_BASE_URL``."""
        return f"{self.base_url}/bot"

    def start(self, timeout: float = 30.0) -> EmulatorProcess:
        """Start and wait for the READY line (RuntimeError if it does not come)."""
        self._process = subprocess.Popen(
            self._command,
            cwd=REPO_ROOT,
            env=_child_env(),
            stdout=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
        )
        try:
            line = self._ready_line(timeout)
            self.port = int(line.rsplit(":", 1)[1])
        except BaseException:
            self.stop()
            raise
        return self

    def _ready_line(self, timeout: float) -> str:
        assert self._process is not None and self._process.stdout is not None
        stdout, data = self._process.stdout, b""
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while b"\n" not in data:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not selector.select(remaining):
                    raise RuntimeError(f"the emulator did not start within {timeout} s")
                chunk = os.read(stdout.fileno(), 4096)
                if not chunk:
                    raise RuntimeError(f"the emulator exited: {self._process.wait()}")
                data += chunk
        line = data.decode().splitlines()[0].strip()
        if not line.startswith(READY):
            raise RuntimeError(f"unexpected emulator output: {line!r}")
        return line

    def stop(self) -> None:
        """Terminate (then kill) the process."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=5)
        if process.stdout is not None:
            process.stdout.close()

    def client(self) -> EmulatorClient:
        """A blocking control client."""
        return EmulatorClient(self.base_url)

    def __enter__(self) -> EmulatorProcess:
        return self.start() if self._process is None else self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


# ---------------------------------------------------------------- command line


async def serve(
    host: str, port: int, *, token: str | None, privacy: bool, first_update_id: int
) -> None:
    """Run the emulator until SIGINT/SIGTERM; print the READY line first."""
    api = FakeBotApi(privacy_mode=privacy, first_update_id=first_update_id)
    server = EmulatorServer(api, token=token)
    await server.start(host, port)
    print(f"{READY} {server.base_url}", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await server.stop()


def main(argv: list[str] | None = None) -> None:
    """``python -m tests.emulator.server --port N [--host H] [--token T] [--no-privacy]``."""
    parser = argparse.ArgumentParser(description="Telegram Bot API emulator for tests")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081, help="0 picks a free port")
    parser.add_argument("--token", help="accept only this bot token (default: any)")
    parser.add_argument("--no-privacy", action="store_true", help="deliver all group messages")
    parser.add_argument(
        "--first-update-id",
        type=int,
        default=int(time.time() * 1000),
        help="default: the clock in ms, so ids keep growing over runs on one database",
    )
    parser.add_argument("--verbose", action="store_true", help="log requests to stderr")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, stream=sys.stderr)
    if not args.verbose:
        logging.getLogger("tornado.access").setLevel(logging.ERROR)
    privacy = not args.no_privacy
    first = args.first_update_id
    asyncio.run(
        serve(args.host, args.port, token=args.token, privacy=privacy, first_update_id=first)
    )


if __name__ == "__main__":
    main()
