"""What every `/app/api/…` request passes besides its launch data, so that the app is no side
door around the chat's rules:

- a recording (record, undo, record again) counts against the member's flood limit in the
  chat (`bot.chat.flood`, the same guard and count): over it, the chat's polite answer as its
  refusal. Views, checks and previews (reads) have a budget of their own (`VIEWS_LIMIT` in
  `VIEWS_WINDOW` per member and chat, `/app/api/me` per member), so looking at the table
  never uses up the commands a member types: over it a GET gets 429 and a check its refusal;
- a recording asks Telegram afresh whether the user is a member; only views (and checks,
  which record nothing) use the minute-long cache;
- a query's number that is not plain digits, a record's id no record can have (past the
  database's 32-bit ids), or a body nested deeper than any form, is a 400; every refused
  request is one log line, never a traceback;
- a recording repeated with its key answers with what that key recorded.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Mapping
from typing import Any, Protocol

import tornado.web

from bot.commands.callback_data import MAX_ID
from bot.i18n import N_
from bot.presentation.render import Renderer
from service.language import shown
from service.replies import Recorded, Reply

log = logging.getLogger(__name__)
#: The chat's own warning (`bot.chat.flood_gate`; the app may not import the chat's handlers).
FLOOD_WARNING = N_(
    "Slow down, please: at most {limit} commands in {window} seconds each. "
    "I will answer you again in a moment."
)
VIEWS_WARNING = N_(
    "Slow down, please: the app answers at most {limit} requests in {window} seconds each. "
    "Try again in a moment."
)
VIEWS_LIMIT, VIEWS_WINDOW = 60, 10.0  # a member's reads in a chat (`bot_data["views"]`)
NUMBERS = ("n", "season")  # the query's numbers
MAX_DIGITS = 9
MAX_DEPTH = 16  # a form is a few levels deep (clauses of a hand, entries of a report)
DRY_RUNS = ("/app/api/check",)  # POSTs that record nothing


class Limit(Protocol):
    """The chat's flood guard (`bot.chat.flood.FloodGuard`, in `bot_data["flood"]`)."""

    limit: int
    window: float

    def check(self, user_id: int, chat_id: int) -> str: ...
    def retry_after(self, user_id: int, chat_id: int) -> float: ...


def over_budget(
    handler: tornado.web.RequestHandler,
    budgets: Mapping[str, Any],
    *,
    record: bool,
    user_id: int,
    chat_id: int,
    lang: str | None,
) -> bool:
    """Count the request: a recording against the member's command limit in the chat (the
    chat's guard, `budgets["flood"]`), a read against the member's views (`budgets["views"]`).
    True when it was over and answered so (`flooded`)."""
    if record:
        return flooded(handler, budgets.get("flood"), user_id, chat_id, lang)
    return flooded(handler, budgets.get("views"), user_id, chat_id, lang, VIEWS_WARNING)


def flooded(
    handler: tornado.web.RequestHandler,
    guard: Limit | None,
    user_id: int,
    chat_id: int,
    lang: str | None,
    warning: str = FLOOD_WARNING,
) -> bool:
    """Count the request against the member's limit in the chat (`guard`); over it, the
    polite `warning` in `lang`: a view's is a 429, a check's or a recording's its refusal.
    True when the request was answered so."""
    if guard is None or guard.check(user_id, chat_id) == "allow":
        return False
    params = {"limit": guard.limit, "window": f"{guard.window:g}"}
    text = Renderer(shown(None, lang)).alert(warning, params)
    if handler.request.method == "GET":
        handler.set_status(429)
        wait = guard.retry_after(user_id, chat_id)
        handler.set_header("Retry-After", str(max(1, math.ceil(wait))))
    handler.finish({"ok": False, "error": text})
    return True


def fresh(request: Any) -> bool:
    """Whether the request records something: its membership is asked afresh."""
    return request.method != "GET" and request.path not in DRY_RUNS


def check_query(handler: tornado.web.RequestHandler) -> None:
    """A 400 for a number in the query that is not up to `MAX_DIGITS` plain digits."""
    for name in NUMBERS:
        value = handler.get_query_argument(name, "")
        if value and not (value.isascii() and value.isdigit() and len(value) <= MAX_DIGITS):
            raise tornado.web.HTTPError(400)


def record_id(value: Any) -> int:
    """A record's id from a body (Undo, Record again): an int of 1 to `MAX_ID`, else a 400
    (a larger one is past the database's integers: an error there, not a refusal)."""
    if type(value) is not int or not 0 < value <= MAX_ID:
        raise tornado.web.HTTPError(400)
    return value


def parse(body: bytes) -> Any:
    """A request's JSON body (a 400 if it is not JSON, or nested deeper than a form)."""
    try:
        data = json.loads(body or b"null")
    except (ValueError, RecursionError):
        raise tornado.web.HTTPError(400) from None
    if _depth(data) > MAX_DEPTH:
        raise tornado.web.HTTPError(400)
    return data


def _depth(value: Any, level: int = 0) -> int:
    if level > MAX_DEPTH:
        return level
    items = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return max((_depth(item, level + 1) for item in items), default=level)


def static_path(handler: tornado.web.RequestHandler, url_path: str) -> None:
    """A 400 for a page's path no file can have (a NUL, a control character)."""
    if not url_path.isprintable():
        logged(handler, 400)
        raise tornado.web.HTTPError(400)


def logged(handler: tornado.web.RequestHandler, status: int) -> None:
    """One line for a refused request (its traceback, if any, is not logged)."""
    request = handler.request
    log.warning("app request refused (%s): %s %.200r", status, request.method, request.uri)


def recorded(reply: Reply, command: str) -> str:
    """The command a recording answers with: the one its key recorded, if it came again."""
    return reply.view.text if isinstance(reply, Recorded) and reply.repeated else command
