"""The emulator's Bot API of 2026 (issue 40, points 3-5): Rich Messages (`sendRichMessage`,
Bot API 10.1/10.3), guest mode (`Update.guest_message`, `answerGuestQuery`, 10.0) and the
menu button (`setChatMenuButton`/`getChatMenuButton`). ``FakeBotApi`` inherits these.

Rich Messages are off unless ``rich_messages`` is set: by default the emulator is a server
older than 10.1 (404 Not Found, as Telegram answers an unknown method), so the text replies
every other test reads stay as they are; a test that wants the tables turns them on.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

JSON = dict[str, Any]

#: The InputRichBlock types (Bot API 10.1-10.3) the emulator accepts.
_BLOCK_NAMES = (
    "paragraph heading preformatted footer divider mathematical_expression anchor list "
    "block_quotation expandable_block_quotation pull_quotation collage slideshow table "
    "details map buttons animation audio document photo video"
)
RICH_BLOCKS = frozenset(_BLOCK_NAMES.split())
ALIGN = frozenset({"left", "center", "right"})
VALIGN = frozenset({"top", "middle", "bottom"})
MENU_BUTTONS = frozenset({"commands", "web_app", "default"})


def _bad(reason: str) -> Exception:
    from tests.emulator.api import bad_request

    return bad_request(reason)


def rich_text(value: Any) -> str:
    """A RichText as plain text: a String, an Array of RichText or an object with ``text``."""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "".join(rich_text(v) for v in value)
    if isinstance(value, dict) and "text" in value:
        return rich_text(value["text"])
    raise _bad("can't parse rich text")


def _check_cell(cell: Any) -> str:
    if not isinstance(cell, dict):
        raise _bad("RICH_TABLE_CELL_INVALID")
    if cell.get("align") not in ALIGN or cell.get("valign") not in VALIGN:
        raise _bad("RICH_TABLE_CELL_ALIGN_INVALID")
    return rich_text(cell["text"]) if "text" in cell else ""


def rich_plain(message: Any) -> str:
    """An InputRichMessage checked as Telegram would (exactly one of html, markdown, blocks; the
    blocks' types; a table's cells) and shown as plain lines: a table row per line, its cells
    joined by " | "."""
    if not isinstance(message, dict):
        raise _bad("can't parse rich_message JSON object")
    given = [key for key in ("html", "markdown", "blocks") if message.get(key) is not None]
    if len(given) != 1:
        raise _bad("exactly one of html, markdown or blocks must be specified")
    if given[0] != "blocks":
        return str(message[given[0]])
    blocks = message["blocks"]
    if not isinstance(blocks, list) or not blocks:
        raise _bad("RICH_MESSAGE_EMPTY")
    lines: list[str] = []
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind not in RICH_BLOCKS:
            raise _bad(f"unsupported rich block type {kind!r}")
        if kind == "table":
            rows = block.get("cells")
            if not isinstance(rows, list) or not all(isinstance(r, list) for r in rows):
                raise _bad("RICH_TABLE_CELLS_INVALID")
            for flag in ("is_bordered", "is_striped", "is_compact"):
                if flag in block and not isinstance(block[flag], bool):
                    raise _bad(f"{flag} must be a Boolean")
            lines += [" | ".join(_check_cell(cell) for cell in row) for row in rows]
            if "caption" in block:
                lines.append(rich_text(block["caption"]))
        elif kind == "heading":
            if block.get("size") not in range(1, 7):
                raise _bad("RICH_HEADING_SIZE_INVALID")
            lines.append(rich_text(block.get("text", "")))
        elif "text" in block:
            lines.append(rich_text(block["text"]))
    return "\n".join(lines)


class Api2026:
    """Mixed into ``FakeBotApi``: its state lives there (``_guest_queries``, ``menu_button``)."""

    rich_messages: bool = False
    menu_buttons: dict[int | None, JSON]
    guest_queries: dict[str, JSON]
    guest_answers: list[JSON]

    def _newer_state(self) -> None:
        self.menu_buttons = {}
        self.guest_queries = {}
        self.guest_answers = []

    # ------------------------------------------------------------ Rich Messages

    def _m_sendrichmessage(self, params: JSON) -> JSON:
        from tests.emulator.api import FakeApiError, _Raw

        if not self.rich_messages:
            raise FakeApiError(404, "Not Found")
        state = self._writable(params)
        shown = rich_plain(params.get("rich_message"))
        raw = _Raw(text=shown)
        body: JSON = {"rich_message": copy.deepcopy(params["rich_message"])}
        message: JSON = self._send(state, params, raw, body)
        entry = self.outbox[-1]
        self.outbox[-1] = replace(entry, plain_text=shown, media_kind="rich")
        return message

    # ------------------------------------------------------------ the menu button

    def _m_setchatmenubutton(self, params: JSON) -> bool:
        button = params.get("menu_button") or {"type": "default"}
        if button.get("type") not in MENU_BUTTONS:
            raise _bad("can't parse menu button: unknown type")
        url = str(button.get("web_app", {}).get("url", ""))
        if button["type"] == "web_app" and (not button.get("text") or not url):
            raise _bad("can't parse menu button: text and web_app url are required")
        self.menu_buttons[params.get("chat_id")] = copy.deepcopy(button)
        return True

    def _m_getchatmenubutton(self, params: JSON) -> JSON:
        return copy.deepcopy(self.menu_buttons.get(params.get("chat_id"), {"type": "default"}))

    # ------------------------------------------------------------ guest mode

    def guest_message(self, chat: Any, user: Any, text: str, *, deliver: bool = True) -> JSON:
        """A member of a chat the bot is not in mentions it (`@jifen_bot …`): a guest_message
        update with its ``guest_query_id``. Returns the update (enqueued)."""
        from tests.emulator.api import _ChatState

        if chat.id not in self._chats:
            self._chats[chat.id] = _ChatState(chat)
        state = self._chats[chat.id]
        self.users.setdefault(user.id, user)
        state.members.setdefault(user.id, "member")
        message = self._user_message(state, user.to_dict(), text, None, None)
        query_id = f"g{len(self.guest_queries) + 1}-{chat.id}-{message['message_id']}"
        message["guest_query_id"] = query_id
        self.guest_queries[query_id] = {"chat_id": chat.id, "answered": False}
        return self._enqueue("guest_message", message, deliver=deliver)

    def redeliver(self, update: JSON) -> None:
        """The same update once more (Telegram redelivers an update it got no answer for)."""
        self._updates.append(copy.deepcopy(update))
        self._notify("update")

    def _m_answerguestquery(self, params: JSON) -> JSON:
        from tests.emulator.api import OutboxEntry, render, utf16_len

        query_id = str(params.get("guest_query_id") or "")
        query = self.guest_queries.get(query_id)
        if query is None:
            raise _bad("QUERY_ID_INVALID")
        if query["answered"]:
            raise _bad("query is too old and response timeout expired or query ID is invalid")
        result = params.get("result")
        if not isinstance(result, dict) or result.get("type") != "article":
            raise _bad("RESULT_TYPE_INVALID")
        if not result.get("id") or not result.get("title"):
            raise _bad("RESULT_ID_INVALID")
        content = result.get("input_message_content") or {}
        raw = str(content.get("message_text") or "")
        text, _entities = render(raw, content.get("parse_mode"), content.get("entities"))
        if not text.strip():
            raise _bad("MESSAGE_EMPTY")
        if utf16_len(text) > 4096:
            raise _bad("MESSAGE_TOO_LONG")
        query["answered"] = True
        inline_id = f"inline-{query_id}"
        state = self._chats[query["chat_id"]]
        message_id = state.next_message_id
        state.next_message_id += 1
        self.guest_answers.append({"guest_query_id": query_id, "result": copy.deepcopy(result)})
        self.outbox.append(
            OutboxEntry(
                seq=self._next_seq(),
                action="sent",
                chat_id=query["chat_id"],
                message_id=message_id,
                date=self._now(),
                text=raw,
                parse_mode=content.get("parse_mode"),
                plain_text=text,
                reply_markup=copy.deepcopy(result.get("reply_markup")),
                media_kind="guest",
            )
        )
        self._notify("outbox")
        return {"inline_message_id": inline_id}
