"""An update as it arrives (webhook body or one element of getUpdates), checked before the
library builds it: what jifen reads must have the types Telegram gives it.

Two kinds of bad input, two answers:
- `Malformed`: not an update at all (not JSON, not an object, no integer `update_id`). The
  webhook answers 400; nothing reaches a handler.
- `Unreadable`: an update (it has its integer `update_id`) jifen does not read: its types are
  not those it relies on (a message that is a string, a text that is a number or longer than
  Telegram allows, nesting deeper than any update), or the library cannot build it (Telegram
  added or dropped a field this version of PTB insists on). Logged, acknowledged (the webhook
  answers 200) and skipped, so it neither crashes the polling loop nor is redelivered forever.

Polling reads getUpdates through `UpdatesRequest`, PTB's network layer with the answer checked
before PTB builds it: one update it cannot build does not sink the batch.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from telegram import Bot, Update
from telegram.request import BaseRequest, RequestData

from bot.delivery.passing_on import PassingOn

log = logging.getLogger(__name__)
MAX_BODY = (
    512 * 1024
)  # bytes; a real update (4096 characters, entities, a quoted reply) is far less
MAX_DEPTH = 32  # Telegram's deepest nesting (a reply's quoted message's entities…) is about 8
MAX_TEXT = 4096  # characters of a message's text (1024 of a caption); Telegram allows no more
MAX_CAPTION = 1024
MESSAGES = (
    "message",
    "edited_message",
    "channel_post",
    "edited_channel_post",
    "business_message",
    "edited_business_message",
)


class Malformed(ValueError):
    """Not an update Telegram sends; the reason is for the log."""


class Unreadable(ValueError):
    """A well-formed update the library cannot build; skipped."""

    def __init__(self, update_id: int, reason: str) -> None:
        super().__init__(f"update {update_id}: {reason}")
        self.update_id = update_id


def parse_body(body: bytes) -> dict[str, Any]:
    """A webhook body as an update's JSON object (raises `Malformed`)."""
    if len(body) > MAX_BODY:
        raise Malformed(f"body of {len(body)} bytes")
    try:
        data = json.loads(body)
    except (ValueError, RecursionError) as err:  # deep nesting: RecursionError, not ValueError
        raise Malformed(f"not JSON: {type(err).__name__}") from None
    if not isinstance(data, dict):
        raise Malformed(f"a JSON {type(data).__name__}, not an object")
    return data


def build_update(data: Any, bot: Bot | None) -> Update:
    """The update from its JSON object: `Malformed` if it is none, `Unreadable` if jifen does
    not read it (an update that passed the webhook's secret is never refused: Telegram would
    deliver it again forever)."""
    try:
        check_shape(data)
    except Malformed as err:
        if isinstance(data, dict) and _is_int(data.get("update_id")):
            raise Unreadable(data["update_id"], str(err)) from None
        raise
    try:
        update = Update.de_json(data, bot)
    except Exception as err:  # whatever the library raises on a payload it cannot build
        raise Unreadable(data["update_id"], f"{type(err).__name__}: {err}") from err
    return update


def check_shape(data: Any) -> None:
    """The types jifen relies on (raises `Malformed` naming the first wrong one)."""
    if not isinstance(data, dict):
        raise Malformed(f"a JSON {type(data).__name__}, not an object")
    _check_depth(data, 0)
    if not _is_int(data.get("update_id")):
        raise Malformed("no integer update_id")
    for key, value in data.items():
        if key != "update_id" and not isinstance(value, dict):
            raise Malformed(f"{key} is a {type(value).__name__}, not an object")
    for key in MESSAGES:
        if key in data:
            _check_message(data[key], key)
    if "callback_query" in data:
        _check_callback(data["callback_query"])


def _check_depth(value: Any, depth: int) -> None:
    if depth > MAX_DEPTH:
        raise Malformed(f"nested deeper than {MAX_DEPTH}")
    if isinstance(value, dict):
        for item in value.values():
            _check_depth(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_depth(item, depth + 1)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_message(message: Any, where: str) -> None:
    if not isinstance(message, dict):
        raise Malformed(f"{where} is not an object")
    if not _is_int(message.get("message_id")) or not _is_int(message.get("date")):
        raise Malformed(f"{where} needs integer message_id and date")
    _check_chat(message.get("chat"), f"{where}.chat")
    for key in ("from", "sender_chat"):
        if key in message:
            _check_ided(message[key], f"{where}.{key}")
    for key, limit in (("text", MAX_TEXT), ("caption", MAX_CAPTION)):
        value = message.get(key)
        if value is not None and not isinstance(value, str):
            raise Malformed(f"{where}.{key} is a {type(value).__name__}, not a string")
        if isinstance(value, str) and len(value) > limit:
            raise Malformed(f"{where}.{key} has {len(value)} characters (at most {limit})")
    if "reply_to_message" in message:
        _check_message(message["reply_to_message"], f"{where}.reply_to_message")


def _check_chat(chat: Any, where: str) -> None:
    _check_ided(chat, where)
    if not isinstance(chat.get("type"), str):
        raise Malformed(f"{where}.type is not a string")


def _check_ided(value: Any, where: str) -> None:
    if not isinstance(value, dict) or not _is_int(value.get("id")):
        raise Malformed(f"{where} needs an integer id")


def _check_callback(query: Any) -> None:
    if not isinstance(query.get("id"), str):
        raise Malformed("callback_query.id is not a string")
    _check_ided(query.get("from"), "callback_query.from")
    data = query.get("data")
    if data is not None and not isinstance(data, str):
        raise Malformed("callback_query.data is not a string")
    message = query.get("message")
    if message is not None and not (
        isinstance(message, dict) and message.get("date") == 0
    ):  # date 0: inaccessible message
        _check_message(message, "callback_query.message")


def readable_body(body: bytes) -> bytes:
    """getUpdates' answer with each update PTB cannot build replaced by an empty update of the
    same id (logged): confirmed with the batch by the next offset, matched by no handler. An
    update without an id cannot be confirmed and is left out. The body itself when all is
    well; an answer that is not Telegram's success is left to PTB."""
    try:
        answer = json.loads(body)
    except ValueError:
        return body
    if not isinstance(answer, dict) or answer.get("ok") is not True:
        return body
    result = answer.get("result")
    if not isinstance(result, list):
        log.error("getUpdates returned %s, not a list", type(result).__name__)
        return json.dumps({"ok": True, "result": []}).encode()
    kept: list[Any] = []
    for item in result:
        try:
            build_update(item, None)
        except (Malformed, Unreadable) as err:
            log.error("skipping an update that cannot be read: %s", err)
            update_id = item.get("update_id") if isinstance(item, dict) else None
            kept += [{"update_id": update_id}] if _is_int(update_id) else []
        else:
            kept.append(item)
    if len(kept) == len(result) and all(a is b for a, b in zip(kept, result, strict=True)):
        return body
    return json.dumps({**answer, "result": kept}).encode()


class UpdatesRequest(PassingOn):
    """The getUpdates request of the bot (`ApplicationBuilder.get_updates_request`): `inner`'s,
    with its answer made readable (`readable_body`) before PTB builds the updates."""

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
        code, body = await super().do_request(
            url, method, request_data, read_timeout, write_timeout, connect_timeout, pool_timeout
        )
        if code != 200 or not url.endswith("/getUpdates"):
            return code, body
        return code, readable_body(body)
