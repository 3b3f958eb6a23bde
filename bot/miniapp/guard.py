"""What every `/app/api/…` request passes besides its launch data, so that the app is no side
door around the chat's rules:

- a recording (record, undo, record again) counts against the member's flood limit in the
  chat (`bot.chat.flood`, the same guard and count): over it, the chat's polite answer as its
  refusal. Views have a budget of their own (`VIEWS_LIMIT` in `VIEWS_WINDOW` per member and
  chat, `/app/api/me` per member), and so have the page's previews and checks (`PREVIEWS_…`:
  the page asks for one at every tap; they write nothing), so neither looking at the table nor
  tapping a form uses up the commands a member types: over it a GET gets 429, a POST its
  refusal marked `limited` with the seconds to wait (`retry`), which the page waits out;
- a recording asks Telegram afresh whether the user is a member; views, checks and previews
  (which record nothing) use the minute-long cache;
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
PREVIEWS_LIMIT, PREVIEWS_WINDOW = 100, 10.0  # a member's previews (`bot_data["previews"]`)
NUMBERS = ("n", "season")  # the query's numbers
MAX_DIGITS = 9
MAX_DEPTH = 16  # a form is a few levels deep (clauses of a hand, entries of a report)
DRY_RUNS = ("/app/api/check", "/app/api/preview", "/app/api/tiles")  # POSTs recording nothing


class Limit(Protocol):
    """The chat's flood guard (`bot.chat.flood.FloodGuard`, in `bot_data["flood"]`)."""

    limit: int
    window: float

    def check(self, user_id: int, chat_id: int) -> str: ...
    def retry_after(self, user_id: int, chat_id: int) -> float: ...


def budget_of(request: Any, records: bool) -> str:
    """The budget a request counts against: `flood` (a recording: the member's command limit
    in the chat), `previews` (a POST that records nothing) or `views` (a GET)."""
    if records:
        return "flood"
    return "views" if request.method == "GET" else "previews"


def over_budget(
    handler: tornado.web.RequestHandler,
    budgets: Mapping[str, Any],
    *,
    budget: str,
    user_id: int,
    chat_id: int,
    lang: str | None,
) -> bool:
    """Count the request against the member's `budget` in the chat (`budget_of`; the chat's
    own guard for `flood`). True when it was over and answered so (`flooded`)."""
    warning = FLOOD_WARNING if budget == "flood" else VIEWS_WARNING
    return flooded(handler, budgets.get(budget), user_id, chat_id, lang, warning)


def flooded(
    handler: tornado.web.RequestHandler,
    guard: Limit | None,
    user_id: int,
    chat_id: int,
    lang: str | None,
    warning: str = FLOOD_WARNING,
) -> bool:
    """Count the request against the member's limit in the chat (`guard`); over it, the
    polite `warning` in `lang`: a view's is a 429, a check's, a preview's or a recording's its
    refusal, marked `limited`, with `retry` (the seconds until it is served again).
    True when the request was answered so."""
    if guard is None or guard.check(user_id, chat_id) == "allow":
        return False
    params = {"limit": guard.limit, "window": f"{guard.window:g}"}
    text = Renderer(shown(None, lang)).alert(warning, params)
    wait = max(1, math.ceil(guard.retry_after(user_id, chat_id)))
    if handler.request.method == "GET":
        handler.set_status(429)
        handler.set_header("Retry-After", str(wait))
        handler.finish({"ok": False, "error": text})
    else:
        handler.finish({"ok": False, "error": text, "limited": True, "retry": wait})
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
