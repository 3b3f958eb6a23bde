"""The offline console's Bot API: an in-process stand-in and a PTB request layer answered by it.

``OfflineBotApi`` answers the calls the bot makes (getMe, setMyCommands, getMyCommands,
setChatMenuButton, getChatMember, sendMessage (an ephemeral one too: shown as "(only 老王
sees)"), sendPhoto, sendDocument, editMessageText, editMessageReplyMarkup, answerCallbackQuery,
answerGuestQuery; sendRichMessage when ``rich_messages`` is set, else 404 as a server before Bot
API 10.1) with plausible objects, builds the updates of console input (a typed line, a pressed
button, a guest mention) and records what the bot did: messages sent and edited (as users see
them) and callback answers, in one sequence. It is no emulator: it checks little, parses HTML
only down to plain text and serves no HTTP; the tests have a faithful one (``tests/emulator``).
One instance is used from one thread (the event loop's).
"""

from __future__ import annotations

import html
import json
import re
import time
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from telegram.request import BaseRequest, RequestData

JSON = dict[str, Any]

BOT_USER_ID = 7000001
NOT_MODIFIED = "Bad Request: message is not modified"
_CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")
_COMMAND = re.compile(r"/[A-Za-z0-9_]{1,64}(?:@([A-Za-z0-9_]{3,32}))?")
_TAG = re.compile(r"<[^<>]*>")


class ApiError(Exception):
    """An ``ok: false`` answer (``code`` is also the HTTP status)."""

    def __init__(self, code: int, description: str) -> None:
        super().__init__(f"{code} {description}")
        self.code = code
        self.description = description


@dataclass(frozen=True)
class User:
    """A Telegram user."""

    id: int
    first_name: str
    username: str | None = None
    language_code: str | None = None
    is_bot: bool = False

    @classmethod
    def named(cls, name: str) -> User:
        """A user whose id is a stable function of ``name``; Chinese names speak Chinese."""
        is_username = re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{4,31}", name) is not None
        return cls(
            id=10_000 + zlib.crc32(name.casefold().encode()) % 10**9,
            first_name=name,
            username=name if is_username else None,
            language_code="zh" if _CJK.search(name) else "en",
        )

    def to_dict(self) -> JSON:
        """The Bot API ``User`` object."""
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        if self.username:
            data["username"] = self.username
        if self.language_code:
            data["language_code"] = self.language_code
        return data


@dataclass(frozen=True)
class Chat:
    """A group chat: ``type`` is "group" or "supergroup"."""

    id: int
    type: str = "supergroup"
    title: str | None = None

    def to_dict(self) -> JSON:
        """The Bot API ``Chat`` object."""
        data: JSON = {"id": self.id, "type": self.type}
        if self.title:
            data["title"] = self.title
        return data


@dataclass(frozen=True)
class UploadedFile:
    """A file sent with a request: name, bytes, MIME type."""

    filename: str
    content: bytes
    mime_type: str = "application/octet-stream"


@dataclass(frozen=True)
class OutboxEntry:
    """A bot message as users see it after it was "sent" or "edited" (``plain_text``: the text
    or caption without markup); photos and documents keep their file."""

    seq: int
    action: str
    chat_id: int
    message_id: int
    plain_text: str
    reply_markup: JSON | None = None
    media_kind: str | None = None
    file: UploadedFile | None = None
    receiver: str | None = None  # an ephemeral message: the one member who sees it

    @property
    def buttons(self) -> list[list[JSON]]:
        """The inline keyboard's rows of buttons (empty without one)."""
        return list((self.reply_markup or {}).get("inline_keyboard") or [])


@dataclass(frozen=True)
class CallbackAnswer:
    """An answerCallbackQuery call."""

    seq: int
    text: str | None
    show_alert: bool
    url: str | None = None  # a t.me link the press opens (the private chat with the bot)


@dataclass
class _Message:
    """A message of the bot, as it stands now."""

    chat: Chat
    message_id: int
    date: int
    text: str
    reply_markup: JSON | None = None
    media: JSON = field(default_factory=dict)  # {"photo": [...]} or {"document": {...}}

    def to_dict(self, sender: JSON) -> JSON:
        text_key = "caption" if self.media else "text"
        data: JSON = {
            "message_id": self.message_id,
            "from": sender,
            "date": self.date,
            "chat": self.chat.to_dict(),
            **self.media,
        }
        if self.text:
            data[text_key] = self.text
        if self.reply_markup:
            data["reply_markup"] = self.reply_markup
        return data


def plain_text(text: str, parse_mode: str | None) -> str:
    """What users see of a text sent with ``parse_mode`` (HTML tags dropped, entities decoded)."""
    if (parse_mode or "").lower() != "html":
        return text
    return html.unescape(_TAG.sub("", text))


def _utf16(match: re.Match[str]) -> int:
    return len(match.group().encode("utf-16-le")) // 2


def _menu_key(params: Mapping[str, Any]) -> str:
    scope = params.get("scope") or {"type": "default"}
    return json.dumps([scope, params.get("language_code") or ""], sort_keys=True)


def rich_plain(message: Mapping[str, Any]) -> str:
    """A Rich Message of blocks as plain lines: a heading or paragraph its text, a table a line
    per row (cells joined by " | ") and its caption."""
    lines: list[str] = []
    for block in message.get("blocks") or []:
        if block.get("type") == "table":
            rows = block.get("cells") or []
            lines += [" | ".join(str(c.get("text", "")) for c in row) for row in rows]
            lines += [str(block["caption"])] if block.get("caption") else []
        elif isinstance(block.get("text"), str):
            lines.append(block["text"])
    return "\n".join(lines)


def _inline(markup: Any) -> JSON | None:
    return markup if isinstance(markup, dict) and markup.get("inline_keyboard") else None


class OfflineBotApi:
    """Chats with their members, the updates not yet delivered, the bot's messages and outbox."""

    def __init__(self) -> None:
        self.bot_user = User(BOT_USER_ID, "jifen", username="jifen_bot", is_bot=True)
        self.next_update_id = 1
        self.outbox: list[OutboxEntry] = []
        self.callback_answers: list[CallbackAnswer] = []
        self._chats: dict[int, Chat] = {}
        self._members: dict[int, dict[int, tuple[User, str]]] = {}
        self._messages: dict[tuple[int, int], _Message] = {}
        self._next_message_id: dict[int, int] = {}
        self._updates: list[JSON] = []
        self._queries: set[str] = set()
        self._seq = 0
        self._commands: dict[str, list[JSON]] = {}  # scope and language → the menu
        self._guests: dict[str, Chat] = {}  # guest_query_id → its chat, until answered
        #: Rich Messages (Bot API 10.1) known: off, the console prints the text replies.
        self.rich_messages = False

    # ------------------------------------------------------------ the console's side

    def add_chat(self, chat: Chat) -> Chat:
        """Register ``chat`` (once; the first registration stands) and return it."""
        return self._chats.setdefault(chat.id, chat)

    def set_member(self, chat_id: int, user: User, status: str) -> None:
        """``user``'s status in a registered chat: "creator", "administrator", "member"…"""
        self._members.setdefault(chat_id, {})[user.id] = (user, status)

    def send_text(self, chat: Chat, user: User, text: str) -> JSON:
        """A user's message; queued for the bot unless privacy mode hides it (in a group the
        bot gets only commands, to it or to no bot in particular, and mentions of it)."""
        message = self._new(chat) | {"from": user.to_dict(), "text": text}
        command = _COMMAND.match(text)
        if command:
            message["entities"] = [{"type": "bot_command", "offset": 0, "length": _utf16(command)}]
        name = (self.bot_user.username or "").casefold()
        to_us = command is not None and (command.group(1) or name).casefold() == name
        return self._enqueue("message", message, to_us or f"@{name}" in text.casefold())

    def press_button(self, chat: Chat, user: User, message_id: int, data: str) -> JSON:
        """A callback query from pressing a button (``data``) of a bot message."""
        self._queries.add(query_id := str(4_000_000_000_000 + self.next_update_id))
        query = {
            "id": query_id,
            "from": user.to_dict(),
            "message": self._messages[(chat.id, message_id)].to_dict(self.bot_user.to_dict()),
            "chat_instance": str(chat.id),
            "data": data,
        }
        return self._enqueue("callback_query", query, True)

    def guest_text(self, chat: Chat, user: User, text: str) -> JSON:
        """A member mentions the bot in a chat it is not in (Bot API 10.0 guest mode): a
        ``guest_message`` update with its ``guest_query_id``."""
        message = self._new(chat) | {"from": user.to_dict(), "text": text}
        message["guest_query_id"] = query_id = f"guest-{chat.id}-{message['message_id']}"
        self._guests[query_id] = chat
        return self._enqueue("guest_message", message, True)

    def take_updates(self) -> list[JSON]:
        """Every update not yet delivered, oldest first (they are delivered now)."""
        updates, self._updates = self._updates, []
        return updates

    def bot_messages(self, chat_id: int) -> list[JSON]:
        """The bot's messages in a chat as they stand now, oldest first."""
        sender = self.bot_user.to_dict()
        keys = sorted(key for key in self._messages if key[0] == chat_id)
        return [self._messages[key].to_dict(sender) for key in keys]

    @property
    def last_seq(self) -> int:
        """The sequence number of the latest outbox entry or callback answer (0 if none)."""
        return self._seq

    def outbox_since(self, seq: int = 0) -> list[OutboxEntry]:
        """Outbox entries after ``seq``."""
        return [entry for entry in self.outbox if entry.seq > seq]

    def answers_since(self, seq: int = 0) -> list[CallbackAnswer]:
        """Callback answers after ``seq``."""
        return [answer for answer in self.callback_answers if answer.seq > seq]

    def _new(self, chat: Chat) -> JSON:
        self.add_chat(chat)
        message_id = self._next_message_id.get(chat.id, 1)
        self._next_message_id[chat.id] = message_id + 1
        return {"message_id": message_id, "date": int(time.time()), "chat": chat.to_dict()}

    def _enqueue(self, kind: str, payload: JSON, deliver: bool) -> JSON:
        update = {"update_id": self.next_update_id, kind: payload}
        self.next_update_id += 1
        if deliver:
            self._updates.append(update)
        return update

    # ------------------------------------------------------------ the bot's side

    def respond(self, method: str, params: Mapping[str, Any]) -> tuple[int, JSON]:
        """HTTP status and body of a Bot API call (``{"ok": true, "result": ...}``)."""
        handler = getattr(self, f"_m_{method.lower()}", None)
        if handler is None:
            return 404, {"ok": False, "error_code": 404, "description": "Not Found"}
        try:
            return 200, {"ok": True, "result": handler(params)}
        except ApiError as error:
            body = {"ok": False, "error_code": error.code, "description": error.description}
            return error.code, body

    def _m_getme(self, params: Mapping[str, Any]) -> JSON:
        return self.bot_user.to_dict() | {
            "can_join_groups": True,
            "can_read_all_group_messages": False,
            "supports_inline_queries": False,
        }

    def _m_setmycommands(self, params: Mapping[str, Any]) -> bool:
        self._commands[_menu_key(params)] = list(params.get("commands") or [])
        return True

    def _m_getmycommands(self, params: Mapping[str, Any]) -> list[JSON]:
        return self._commands.get(_menu_key(params), [])

    def _m_setchatmenubutton(self, params: Mapping[str, Any]) -> bool:
        return True

    def _m_sendrichmessage(self, params: Mapping[str, Any]) -> JSON:
        if not self.rich_messages:
            raise ApiError(404, "Not Found")
        return self._send(params, rich_plain(params["rich_message"]))

    def _m_answerguestquery(self, params: Mapping[str, Any]) -> JSON:
        chat = self._guests.pop(str(params["guest_query_id"]), None)
        if chat is None:
            raise ApiError(400, "Bad Request: query is too old or query ID is invalid")
        content = params["result"]["input_message_content"]
        text = plain_text(str(content["message_text"]), content.get("parse_mode"))
        self._send({"chat_id": chat.id}, text)
        return {"inline_message_id": f"inline-{params['guest_query_id']}"}

    def _m_getchatmember(self, params: Mapping[str, Any]) -> JSON:
        members = self._members.get(int(params["chat_id"]), {})
        if int(params["user_id"]) not in members:
            raise ApiError(400, "Bad Request: user not found")
        user, status = members[int(params["user_id"])]
        member: JSON = {"status": status, "user": user.to_dict()}
        if status == "creator":
            member["is_anonymous"] = False
        elif status == "administrator":
            rights = (
                "can_manage_chat can_delete_messages can_manage_video_chats can_restrict_members "
                "can_change_info can_invite_users can_pin_messages"
            )
            withheld = (
                "can_be_edited is_anonymous can_promote_members can_post_stories "
                "can_edit_stories can_delete_stories"
            )
            member |= dict.fromkeys(rights.split(), True) | dict.fromkeys(withheld.split(), False)
        return member

    def _m_sendmessage(self, params: Mapping[str, Any]) -> JSON:
        text = plain_text(str(params["text"]), params.get("parse_mode"))
        ephemeral = params.get("ephemeral_message_parameters")
        if ephemeral is None:
            return self._send(params, text)
        receiver = self._member(int(params["chat_id"]), int(ephemeral["receiver_user_id"]))
        return self._send(params, text, receiver=receiver.first_name)

    def _member(self, chat_id: int, user_id: int) -> User:
        """A member of the chat (the receiver of an ephemeral message)."""
        found = self._members.get(chat_id, {}).get(user_id)
        if found is None:
            raise ApiError(400, "Bad Request: PARTICIPANT_ID_INVALID")
        return found[0]

    def _m_sendphoto(self, params: Mapping[str, Any]) -> JSON:
        return self._send_file(params, "photo")

    def _m_senddocument(self, params: Mapping[str, Any]) -> JSON:
        return self._send_file(params, "document")

    def _send_file(self, params: Mapping[str, Any], kind: str) -> JSON:
        upload = params.get(kind)
        if not isinstance(upload, UploadedFile):
            raise ApiError(400, "Bad Request: wrong file identifier/HTTP URL specified")
        ids = {"file_id": f"{kind}-{self._seq + 1}", "file_unique_id": f"{kind}{self._seq + 1}"}
        media: JSON = (
            {"photo": [ids | {"width": 0, "height": 0}]}
            if kind == "photo"
            else {"document": ids | {"file_name": upload.filename}}
        )
        caption = plain_text(str(params.get("caption") or ""), params.get("parse_mode"))
        return self._send(params, caption, media, upload)

    def _send(
        self,
        params: Mapping[str, Any],
        text: str,
        media: JSON | None = None,
        upload: UploadedFile | None = None,
        *,
        receiver: str | None = None,
    ) -> JSON:
        chat = self._chat(params)
        new = self._new(chat)
        markup = _inline(params.get("reply_markup"))
        message = _Message(chat, new["message_id"], new["date"], text, markup, media or {})
        self._messages[(chat.id, message.message_id)] = message
        return self._record("sent", message, upload, receiver)

    def _m_editmessagetext(self, params: Mapping[str, Any]) -> JSON:
        message = self._message(params)
        text = plain_text(str(params["text"]), params.get("parse_mode"))
        markup = _inline(params.get("reply_markup"))
        if (text, markup) == (message.text, message.reply_markup):
            raise ApiError(400, NOT_MODIFIED)
        message.text, message.reply_markup = text, markup
        return self._record("edited", message)

    def _m_editmessagereplymarkup(self, params: Mapping[str, Any]) -> JSON:
        message = self._message(params)
        markup = _inline(params.get("reply_markup"))
        if markup == message.reply_markup:
            raise ApiError(400, NOT_MODIFIED)
        message.reply_markup = markup
        return self._record("edited", message)

    def _m_answercallbackquery(self, params: Mapping[str, Any]) -> bool:
        query_id = str(params["callback_query_id"])
        if query_id not in self._queries:
            raise ApiError(400, "Bad Request: query is too old or query ID is invalid")
        self._queries.remove(query_id)
        text = params.get("text")
        show_alert = bool(params.get("show_alert", False))
        url = params.get("url")
        self.callback_answers.append(CallbackAnswer(self._next_seq(), text, show_alert, url))
        return True

    def _chat(self, params: Mapping[str, Any]) -> Chat:
        chat = self._chats.get(int(params["chat_id"]))
        if chat is None:
            raise ApiError(400, "Bad Request: chat not found")
        return chat

    def _message(self, params: Mapping[str, Any]) -> _Message:
        message = self._messages.get((self._chat(params).id, int(params["message_id"])))
        if message is None:
            raise ApiError(400, "Bad Request: message to edit not found")
        return message

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _record(
        self,
        action: str,
        message: _Message,
        upload: UploadedFile | None = None,
        receiver: str | None = None,
    ) -> JSON:
        kind = next(iter(message.media), None)
        self.outbox.append(
            OutboxEntry(
                self._next_seq(),
                action,
                message.chat.id,
                message.message_id,
                message.text,
                message.reply_markup,
                kind,
                upload,
                receiver,
            )
        )
        return message.to_dict(self.bot_user.to_dict())


class BotApi(Protocol):
    """What answers the calls of an ``OfflineRequest``."""

    def respond(self, method: str, params: Mapping[str, Any]) -> tuple[int, JSON]:
        """HTTP status and response body of a call."""
        ...


def request_params(request_data: RequestData | None) -> JSON:
    """A call's parameters as Python values, uploaded files as ``UploadedFile``."""
    if request_data is None:
        return {}
    params: JSON = dict(request_data.parameters)
    for name, (filename, content, mime_type) in request_data.multipart_data.items():
        data = content if isinstance(content, bytes) else content.read()
        params[name] = UploadedFile(filename, data, mime_type)
    return params


class OfflineRequest(BaseRequest):
    """PTB's network layer replaced: each call is answered by ``api`` in-process."""

    __slots__ = ("_api",)

    def __init__(self, api: BotApi) -> None:
        self._api = api

    @property
    def read_timeout(self) -> float | None:
        """Default read timeout; PTB adds the getUpdates ``timeout`` to it."""
        return 5.0

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
        api_method = url.rstrip("/").rsplit("/", 1)[-1]
        code, body = await self.answer(api_method, request_params(request_data))
        return code, json.dumps(body).encode()

    async def answer(self, method: str, params: JSON) -> tuple[int, JSON]:
        """The api's answer to one call."""
        return self._api.respond(method, params)
