"""The Bot API emulator of the tests: an in-memory Telegram that checks what the bot sends.

``FakeBotApi.call(method, params)`` answers like Telegram (JSON-ready results PTB can de_json,
``FakeApiError`` for the ``ok: false`` answers: HTML that Telegram would refuse, unknown chats,
a bot that was kicked…); the update builders enqueue updates shaped as Telegram sends them; the
outbox records every message the bot sent, edited or deleted (an ephemeral one, Bot API 10.2,
with the `receiver_user_id` who alone sees it; refused as an older server or client would when
told: `ephemeral_supported`, `ephemeral_refused`). It is served in-process
(``tests.emulator.request``) or over HTTP (``tests.emulator.server``). Not thread-safe: use one
instance from one thread (the event loop's).
"""

from __future__ import annotations

import base64
import copy
import hashlib
import html
import json
import re
import struct
import time
import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from bot.console.offline import UploadedFile
from tests.emulator.newer import Api2026

JSON = dict[str, Any]
Listener = Callable[[str], None]

BOT_USER_ID = 7000001
ANONYMOUS_ADMIN = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}
MEMBER_STATUSES = frozenset({"creator", "administrator", "member", "left", "kicked"})
DEFAULT_ALLOWED_UPDATES = frozenset({"chat_member", "message_reaction", "message_reaction_count"})
TEXT_LIMIT = 4096
CAPTION_LIMIT = 1024
NOT_MODIFIED = (
    "Bad Request: message is not modified: specified new message content and reply markup "
    "are exactly the same as a current content and reply markup of the message"
)
CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")


class FakeApiError(Exception):
    """An ``ok: false`` answer of the Bot API (``error_code`` is also the HTTP status)."""

    def __init__(self, error_code: int, description: str, parameters: JSON | None = None) -> None:
        super().__init__(f"{error_code} {description}")
        self.error_code = error_code
        self.description = description
        self.parameters = parameters

    def to_json(self) -> JSON:
        """The response body Telegram sends for this error."""
        body: JSON = {"ok": False, "error_code": self.error_code, "description": self.description}
        if self.parameters:
            body["parameters"] = self.parameters
        return body


def bad_request(reason: str) -> FakeApiError:
    """A 400 error with Telegram's ``Bad Request: `` prefix."""
    return FakeApiError(400, f"Bad Request: {reason}")


@dataclass(frozen=True)
class User:
    """A Telegram user as the fake API knows it."""

    id: int
    first_name: str
    last_name: str | None = None
    username: str | None = None
    language_code: str | None = None
    is_bot: bool = False

    @classmethod
    def named(cls, name: str) -> User:
        """A user whose id is a stable function of ``name`` (stable across processes)."""
        is_username = re.fullmatch(r"[A-Za-z][A-Za-z0-9_]{4,31}", name) is not None
        return cls(
            id=10_000 + zlib.crc32(name.casefold().encode()) % 10**9,
            first_name=name,
            username=name if is_username else None,
            language_code="zh" if CJK.search(name) else "en",
        )

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> User:
        """A user from a Bot API ``User`` dict."""
        return cls(
            id=int(data["id"]),
            first_name=str(data.get("first_name") or f"User {data['id']}"),
            last_name=data.get("last_name"),
            username=data.get("username"),
            language_code=data.get("language_code"),
            is_bot=bool(data.get("is_bot", False)),
        )

    def to_dict(self) -> JSON:
        """The Bot API ``User`` dict."""
        data: JSON = {"id": self.id, "is_bot": self.is_bot, "first_name": self.first_name}
        for key in ("last_name", "username", "language_code"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        return data


@dataclass(frozen=True)
class Chat:
    """A chat: ``type`` is "group", "supergroup" or "private"."""

    id: int
    type: str = "supergroup"
    title: str | None = None
    is_forum: bool = False
    username: str | None = None
    first_name: str | None = None

    @classmethod
    def private(cls, user: User) -> Chat:
        """The private chat of ``user`` with the bot."""
        return cls(id=user.id, type="private", username=user.username, first_name=user.first_name)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Chat:
        """A chat from a Bot API ``Chat`` dict."""
        return cls(
            id=int(data["id"]),
            type=str(data.get("type", "supergroup")),
            title=data.get("title"),
            is_forum=bool(data.get("is_forum", False)),
            username=data.get("username"),
            first_name=data.get("first_name"),
        )

    def to_dict(self) -> JSON:
        """The Bot API ``Chat`` dict."""
        data: JSON = {"id": self.id, "type": self.type}
        for key in ("title", "username", "first_name"):
            if getattr(self, key) is not None:
                data[key] = getattr(self, key)
        if self.is_forum:
            data["is_forum"] = True
        return data


@dataclass(frozen=True)
class WebhookConfig:
    """The webhook set with setWebhook."""

    url: str
    secret_token: str | None = None
    max_connections: int = 40


@dataclass(frozen=True)
class OutboxEntry:
    """One thing the bot did to a message: ``action`` is "sent", "edited" or "deleted".

    ``text``/``caption`` are as the bot sent them (``parse_mode`` markup included); ``plain_text``
    is what users see (tags stripped, entities unescaped; the caption for photos/documents).
    """

    seq: int
    action: str
    chat_id: int
    message_id: int
    date: int
    message_thread_id: int | None = None
    text: str | None = None
    parse_mode: str | None = None
    plain_text: str = ""
    reply_markup: JSON | None = None
    reply_to_message_id: int | None = None
    media_kind: str | None = None
    filename: str | None = None
    content: bytes | None = None
    file_ref: str | None = None
    caption: str | None = None
    receiver_user_id: int | None = None  # an ephemeral message: only this member sees it
    callback_query_id: str | None = None  # … answering this button press

    @property
    def buttons(self) -> list[list[JSON]]:
        """The inline keyboard's rows of buttons (empty without one)."""
        return list((self.reply_markup or {}).get("inline_keyboard") or [])

    def to_json(self) -> JSON:
        """A JSON-ready dict (``content`` as base64 in ``content_b64``)."""
        data = {k: v for k, v in self.__dict__.items() if k != "content"}
        data["content_b64"] = base64.b64encode(self.content).decode() if self.content else None
        return data


@dataclass(frozen=True)
class CallbackAnswer:
    """An answerCallbackQuery call, in outbox order (``seq``)."""

    seq: int
    callback_query_id: str
    text: str | None
    show_alert: bool
    url: str | None
    chat_id: int | None
    message_id: int | None

    def to_json(self) -> JSON:
        """A JSON-ready dict."""
        return dict(self.__dict__)


@dataclass
class _Raw:
    """What the bot sent for one of its messages, before Telegram rendered it."""

    text: str | None = None
    parse_mode: str | None = None
    reply_markup: JSON | None = None
    reply_to_message_id: int | None = None
    media_kind: str | None = None
    upload: UploadedFile | None = None
    file_ref: str | None = None
    caption: str | None = None
    ephemeral: JSON | None = None  # its EphemeralMessageParameters


@dataclass(frozen=True)
class _StoredFile:
    file_id: str
    unique_id: str
    path: str
    upload: UploadedFile


@dataclass
class _ChatState:
    chat: Chat
    members: dict[int, str] = field(default_factory=dict)
    next_message_id: int = 1
    migrated_to: int | None = None


# ---------------------------------------------------------------- parameter coercion

_INT_PARAMS = frozenset(
    {
        "message_id",
        "message_thread_id",
        "offset",
        "limit",
        "timeout",
        "user_id",
        "reply_to_message_id",
        "max_connections",
        "cache_time",
        "from_chat_id",
    }
)
_BOOL_PARAMS = frozenset(
    {
        "show_alert",
        "drop_pending_updates",
        "disable_notification",
        "protect_content",
        "allow_sending_without_reply",
        "has_spoiler",
        "disable_content_type_detection",
        "show_caption_above_media",
    }
)
_JSON_PARAMS = frozenset(
    {
        "reply_markup",
        "reply_parameters",
        "entities",
        "caption_entities",
        "allowed_updates",
        "commands",
        "scope",
        "link_preview_options",
        "message_ids",
        "ephemeral_message_parameters",
        "rich_message",
        "result",
        "menu_button",
    }
)


def coerce_params(params: Mapping[str, Any]) -> JSON:
    """Parameters as Python values: HTTP sends strings (JSON-encoded objects, "true", "42")."""
    return {name: _coerce(name, value) for name, value in params.items() if value is not None}


def _coerce(name: str, value: Any) -> Any:
    if not isinstance(value, str):
        return value
    if name in _JSON_PARAMS:
        try:
            return json.loads(value)
        except ValueError:
            raise bad_request(f"can't parse {name} JSON object") from None
    if name in _INT_PARAMS or (name == "chat_id" and re.fullmatch(r"-?\d+", value)):
        try:
            return int(value)
        except ValueError:
            raise bad_request(f"invalid {name} specified") from None
    if name in _BOOL_PARAMS:
        return value.strip().lower() in ("true", "1")
    return value


# ---------------------------------------------------------------- text: entities and HTML


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, the unit of Telegram entity offsets."""
    return len(text.encode("utf-16-le")) // 2


_COMMAND = re.compile(r"(?<![\w/])/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{3,32})?")
_MENTION = re.compile(r"(?<![\w@/])@[A-Za-z][A-Za-z0-9_]{3,31}\b")


def text_entities(text: str) -> list[JSON]:
    """The entities Telegram detects in a user's text: bot commands and @mentions."""
    found = [("bot_command", m) for m in _COMMAND.finditer(text)]
    found += [("mention", m) for m in _MENTION.finditer(text)]
    entities = [
        {"type": kind, "offset": utf16_len(text[: m.start()]), "length": utf16_len(m.group())}
        for kind, m in found
    ]
    return sorted(entities, key=lambda e: e["offset"])


_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
    "a": "text_link",
    "code": "code",
    "pre": "pre",
    "blockquote": "blockquote",
    "tg-emoji": "custom_emoji",
}
_NAMED_ENTITIES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
_TOKEN = re.compile(r"<[^<>]*>|&#?[A-Za-z0-9]+;|[^<&]+|[<&]")
_ATTR = re.compile(r"""([A-Za-z][\w-]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?""")


def _parse_error(reason: str) -> FakeApiError:
    return bad_request(f"can't parse entities: {reason}")


def _unescape(token: str) -> str:
    body = token[1:-1]
    if body.startswith("#"):
        return html.unescape(token)
    return _NAMED_ENTITIES.get(body, token)


def _tag_attrs(rest: str) -> dict[str, str]:
    return {
        m.group(1).lower(): html.unescape(next((g for g in m.groups()[1:] if g is not None), ""))
        for m in _ATTR.finditer(rest)
    }


def _entity(name: str, attrs: dict[str, str], offset: int, length: int) -> JSON | None:
    kind = _TAGS[name]
    if name == "blockquote" and "expandable" in attrs:
        kind = "expandable_blockquote"
    entity: JSON = {"type": kind, "offset": offset, "length": length}
    if name == "a":
        if not attrs.get("href"):
            return None
        user = re.fullmatch(r"tg://user\?id=(\d+)", attrs["href"])
        if user:
            return {**entity, "type": "text_mention", "user": {"id": int(user.group(1))}}
        entity["url"] = attrs["href"]
    if name == "tg-emoji":
        entity["custom_emoji_id"] = attrs.get("emoji-id", "")
    if name == "code" and attrs.get("class", "").startswith("language-"):
        entity["language"] = attrs["class"].removeprefix("language-")
    return entity


class _HtmlParser:
    """Telegram's HTML parse mode: text without tags plus entities (UTF-16 offsets)."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.parts: list[str] = []
        self.pos = 0
        self.stack: list[tuple[str, dict[str, str], int]] = []
        self.entities: list[JSON] = []

    def parse(self) -> tuple[str, list[JSON]]:
        for m in _TOKEN.finditer(self.source):
            token = m.group()
            if token.startswith("<") and len(token) > 1:
                self._tag(token, len(self.source[: m.start()].encode()))
            elif token == "<":
                raise _parse_error(f"unclosed start tag at byte offset {m.start()}")
            else:
                self._text(_unescape(token) if token.startswith("&") else token)
        if self.stack:
            name = self.stack[-1][0]
            raise _parse_error(f'Can\'t find end tag corresponding to start tag "{name}"')
        self.entities.sort(key=lambda e: (e["offset"], -e["length"]))
        return "".join(self.parts), self.entities

    def _text(self, text: str) -> None:
        self.parts.append(text)
        self.pos += utf16_len(text)

    def _tag(self, token: str, at: int) -> None:
        m = re.fullmatch(r"<(/?)([A-Za-z][A-Za-z0-9-]*)?(.*)>", token, re.DOTALL)
        assert m is not None
        closing, name, rest = m.group(1), (m.group(2) or "").lower(), m.group(3)
        if closing:
            self._close(name, at)
        elif name not in _TAGS:
            raise _parse_error(f'Unsupported start tag "{name}" at byte offset {at}')
        else:
            attrs = _tag_attrs(rest)
            if name == "span" and attrs.get("class") != "tg-spoiler":
                raise _parse_error(f'Tag "span" must have class "tg-spoiler" at byte offset {at}')
            self.stack.append((name, attrs, self.pos))

    def _close(self, name: str, at: int) -> None:
        if not self.stack:
            raise _parse_error(f"Unexpected end tag at byte offset {at}")
        open_name, attrs, start = self.stack.pop()
        if name and name != open_name:
            raise _parse_error(
                f'Unmatched end tag at byte offset {at}, expected "</{open_name}>", '
                f'found "</{name}>"'
            )
        entity = _entity(open_name, attrs, start, self.pos - start)
        if entity is not None and entity["length"] > 0:
            self.entities.append(entity)


def parse_html(source: str) -> tuple[str, list[JSON]]:
    """Text and entities of an HTML-formatted message; ``FakeApiError`` (400) if malformed."""
    return _HtmlParser(source).parse()


def render(
    text: str, parse_mode: str | None, entities: list[JSON] | None = None
) -> tuple[str, list[JSON]]:
    """Text and entities as Telegram stores them (Markdown modes are kept verbatim)."""
    if not parse_mode:
        return text, list(entities or [])
    mode = parse_mode.lower()
    if mode == "html":
        return parse_html(text)
    if mode in ("markdown", "markdownv2"):
        return text, []
    raise bad_request(f"unsupported parse_mode {parse_mode!r}")


# ---------------------------------------------------------------- files


def _image_size(data: bytes) -> tuple[int, int] | None:
    """Width and height of a PNG, GIF, JPEG or WebP image; None if not an image."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return struct.unpack("<HH", data[6:10])
    if data.startswith(b"\xff\xd8"):
        return _jpeg_size(data)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return (0, 0)
    return None


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            i += 1
            continue
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2 : i + 4])[0]
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    return (0, 0)


BUTTON_STYLES = frozenset({"danger", "success", "primary"})  # InlineKeyboardButton.style
MAX_BUTTONS = 100  # the buttons of one inline keyboard


def _check_inline_keyboard(markup: Any) -> None:
    if not isinstance(markup, dict):
        raise bad_request("can't parse reply keyboard markup JSON object")
    rows = markup.get("inline_keyboard") or []
    if sum(len(row) for row in rows) > MAX_BUTTONS:
        raise bad_request("REPLY_MARKUP_TOO_LONG")
    actions = {
        "callback_data",
        "url",
        "switch_inline_query",
        "switch_inline_query_current_chat",
        "switch_inline_query_chosen_chat",
        "web_app",
        "login_url",
        "pay",
        "callback_game",
        "copy_text",
        "disabled",
    }
    for row in rows:
        for button in row:
            if not button.get("text"):
                raise bad_request("BUTTON_TEXT_INVALID")
            if len(actions & button.keys()) != 1:
                raise bad_request(
                    "can't parse inline keyboard button: exactly one of the optional fields "
                    "must be used to specify type of the button"
                )
            _check_button_fields(button)
            data = button.get("callback_data")
            if data is not None and not 1 <= len(str(data).encode()) <= 64:
                raise bad_request("BUTTON_DATA_INVALID")


def _check_button_fields(button: JSON) -> None:
    """Bot API 9.4's `style`, 10.3's `disabled` (a `DisabledButton`: an empty object) and the
    `CopyTextButton` (1–256 characters to copy)."""
    if "style" in button and button["style"] not in BUTTON_STYLES:
        raise bad_request("BUTTON_STYLE_INVALID")
    if "disabled" in button and button["disabled"] != {}:
        raise bad_request("can't parse inline keyboard button: disabled must be an object")
    if "copy_text" in button:
        copied = button["copy_text"]
        text = copied.get("text") if isinstance(copied, dict) else None
        if not isinstance(text, str) or not 1 <= len(text) <= 256:
            raise bad_request("COPY_TEXT_INVALID")


def _inline_markup(markup: JSON | None) -> JSON | None:
    return markup if markup and "inline_keyboard" in markup else None


def _check_commands(commands: Any) -> list[JSON]:
    if not isinstance(commands, list) or len(commands) > 100:
        raise bad_request("BOT_COMMANDS_TOO_MUCH")
    for command in commands:
        if not re.fullmatch(r"[a-z0-9_]{1,32}", str(command.get("command", ""))):
            raise bad_request("BOT_COMMAND_INVALID")
        if not 1 <= len(str(command.get("description", ""))) <= 256:
            raise bad_request("BOT_COMMAND_DESCRIPTION_INVALID")
        if not isinstance(command.get("is_ephemeral", False), bool):
            raise bad_request("can't parse BotCommand: is_ephemeral must be a Boolean")
    return [
        {"command": c["command"], "description": c["description"]}
        | ({"is_ephemeral": True} if c.get("is_ephemeral") else {})
        for c in commands
    ]


def _scope_key(params: JSON) -> tuple[str, str]:
    scope = dict(params.get("scope") or {"type": "default"})
    if isinstance(scope.get("chat_id"), str) and re.fullmatch(r"-?\d+", scope["chat_id"]):
        scope["chat_id"] = int(scope["chat_id"])
    return json.dumps(scope, sort_keys=True), str(params.get("language_code") or "")


def _member(user: JSON, status: str) -> JSON:
    """A ChatMember dict for ``status``."""
    member: JSON = {"status": status, "user": user}
    if status == "creator":
        member["is_anonymous"] = False
    elif status == "administrator":
        rights = (
            "can_manage_chat can_delete_messages can_manage_video_chats can_restrict_members "
            "can_change_info can_invite_users can_pin_messages"
        )
        member |= dict.fromkeys(rights.split(), True)
        withheld = (
            "can_be_edited is_anonymous can_promote_members can_post_stories can_edit_stories "
            "can_delete_stories can_manage_topics"
        )
        member |= dict.fromkeys(withheld.split(), False)
    elif status == "kicked":
        member["until_date"] = 0
    return member


def update_kind(update: Mapping[str, Any]) -> str:
    """The update's type: "message", "callback_query", ..."""
    return next(key for key in update if key != "update_id")


def update_chat_id(update: Mapping[str, Any]) -> int | None:
    """The chat an update belongs to (None if it has none)."""
    payload = update[update_kind(update)]
    message = payload.get("message") if "chat" not in payload else payload
    if message and "chat" in message:
        return int(message["chat"]["id"])
    return None


# ---------------------------------------------------------------- the API


class FakeBotApi(Api2026):
    """An in-memory Bot API: chats, members, an update queue and the bot's outbox (and what
    Bot API 10 added: `tests.emulator.newer`)."""

    def __init__(
        self,
        *,
        bot: User | None = None,
        privacy_mode: bool = True,
        first_update_id: int = 1,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.bot_user = bot or User(BOT_USER_ID, "jifen", username="jifen_bot", is_bot=True)
        self.privacy_mode = privacy_mode
        self.next_update_id = first_update_id
        self.users: dict[int, User] = {self.bot_user.id: self.bot_user}
        self.outbox: list[OutboxEntry] = []
        self.callback_answers: list[CallbackAnswer] = []
        self.chat_actions: list[JSON] = []
        self.webhook: WebhookConfig | None = None
        self._clock = clock
        self._chats: dict[int, _ChatState] = {}
        self._messages: dict[tuple[int, int], JSON] = {}
        self._raw: dict[tuple[int, int], _Raw] = {}
        self._updates: list[JSON] = []
        self._started: set[int] = set()
        self._queries: dict[str, tuple[int, int]] = {}
        self._commands: dict[tuple[str, str], list[JSON]] = {}
        self._files: dict[str, _StoredFile] = {}
        self._allowed_updates: list[str] = []
        self._webhook_error: tuple[int, str] | None = None
        self._listeners: list[Listener] = []
        self._seq = 0
        self._query_counter = 0
        self._query_users: dict[str, int] = {}  # every callback query ever made → its presser
        #: Ephemeral messages (Bot API 10.2): False answers them as a server without them
        #: does; the users in `ephemeral_refused` have a client that cannot show them.
        self.ephemeral_supported = True
        self.ephemeral_refused: set[int] = set()
        self._newer_state()

    # ------------------------------------------------------------ setup and inspection

    def add_listener(self, listener: Listener) -> None:
        """Call ``listener(kind)`` after each change: "update", "outbox" or "webhook"."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop calling ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _notify(self, kind: str) -> None:
        for listener in list(self._listeners):
            listener(kind)

    def add_chat(self, chat: Chat) -> Chat:
        """Register ``chat`` (the bot is a member); returns the registered chat."""
        if chat.id not in self._chats:
            self._chats[chat.id] = _ChatState(chat)
            if chat.type != "private":
                self._chats[chat.id].members[self.bot_user.id] = "member"
        return self._chats[chat.id].chat

    @property
    def chats(self) -> dict[int, Chat]:
        """The known chats by id."""
        return {chat_id: state.chat for chat_id, state in self._chats.items()}

    def set_member(self, chat_id: int, user: User, status: str) -> None:
        """Set ``user``'s status in a known chat: creator/administrator/member/left/kicked."""
        if status not in MEMBER_STATUSES:
            raise ValueError(f"unknown member status {status!r}")
        self.users.setdefault(user.id, user)
        self._state(chat_id).members[user.id] = status

    def message(self, chat_id: int, message_id: int) -> JSON | None:
        """A copy of a stored message (current state), or None."""
        found = self._messages.get((chat_id, message_id))
        return copy.deepcopy(found) if found else None

    def bot_messages(self, chat_id: int) -> list[JSON]:
        """Copies of the bot's messages still in the chat, oldest first."""
        keys = sorted(k for k in self._raw if k[0] == chat_id and k in self._messages)
        return [copy.deepcopy(self._messages[k]) for k in keys if not self._raw[k].ephemeral]

    @property
    def last_seq(self) -> int:
        """The sequence number of the latest outbox entry or callback answer (0 if none)."""
        return self._seq

    def outbox_since(self, seq: int = 0, chat_id: int | None = None) -> list[OutboxEntry]:
        """Outbox entries after ``seq`` (optionally of one chat)."""
        return [e for e in self.outbox if e.seq > seq and (chat_id is None or e.chat_id == chat_id)]

    def answers_since(self, seq: int = 0) -> list[CallbackAnswer]:
        """Callback query answers after ``seq``."""
        return [a for a in self.callback_answers if a.seq > seq]

    def commands(self, scope: JSON | None = None, language_code: str = "") -> list[JSON]:
        """The command list stored for a scope (default scope if None) and language."""
        key = _scope_key({"scope": scope, "language_code": language_code})
        return copy.deepcopy(self._commands.get(key, []))

    def file_content(self, file_path: str) -> bytes:
        """The bytes of a stored file by its getFile ``file_path``."""
        for stored in self._files.values():
            if stored.path == file_path:
                return stored.upload.content
        raise FakeApiError(404, "Not Found")

    # ------------------------------------------------------------ update queue

    def pending_updates(self) -> list[JSON]:
        """Copies of the updates not yet confirmed, oldest first."""
        return copy.deepcopy(self._updates)

    def take_updates(self) -> list[JSON]:
        """Remove and return every pending update (as if fetched and confirmed)."""
        updates, self._updates = self._updates, []
        return updates

    def confirm_update(self, update_id: int) -> None:
        """Drop one pending update (a webhook delivery succeeded)."""
        self._updates = [u for u in self._updates if u["update_id"] != update_id]

    def is_allowed(self, update: Mapping[str, Any]) -> bool:
        """Whether the bot's allowed_updates let this update through."""
        kind = update_kind(update)
        if self._allowed_updates:
            return kind in self._allowed_updates
        return kind not in DEFAULT_ALLOWED_UPDATES

    def record_webhook_error(self, message: str | None) -> None:
        """Remember (or clear, with None) the last webhook delivery error."""
        self._webhook_error = (int(self._clock()), message) if message else None

    def _enqueue(self, kind: str, payload: JSON, *, deliver: bool = True) -> JSON:
        update = {"update_id": self.next_update_id, kind: payload}
        self.next_update_id += 1
        if deliver:
            self._updates.append(update)
            self._notify("update")
        return copy.deepcopy(update)

    # ------------------------------------------------------------ update builders

    def send_text(
        self,
        chat: Chat | int,
        user: User,
        text: str,
        thread_id: int | None = None,
        *,
        reply_to: int | None = None,
    ) -> JSON:
        """A user's text message; enqueued unless privacy mode hides it. Returns the update."""
        state = self._incoming_chat(chat, user)
        message = self._user_message(state, user.to_dict(), text, thread_id, reply_to)
        return self._enqueue("message", message, deliver=self._delivers(state.chat, message))

    def send_as_anonymous_admin(
        self, chat: Chat | int, text: str, thread_id: int | None = None
    ) -> JSON:
        """A message of an anonymous group admin (``sender_chat`` is the chat itself)."""
        state = self._incoming_chat(chat, None)
        message = self._user_message(state, dict(ANONYMOUS_ADMIN), text, thread_id, None)
        message["sender_chat"] = state.chat.to_dict()
        return self._enqueue("message", message, deliver=self._delivers(state.chat, message))

    def press_button(self, chat: Chat | int, user: User, message_id: int, data: str) -> JSON:
        """A callback_query from pressing a button of a bot message. Returns the update."""
        state = self._incoming_chat(chat, user)
        key = (state.chat.id, message_id)
        if key not in self._raw or key not in self._messages:
            raise ValueError(f"no bot message {message_id} in chat {state.chat.id}")
        self._query_counter += 1
        query_id = str(4_000_000_000_000 + self._query_counter)
        self._queries[query_id] = key
        self._query_users[query_id] = user.id
        query = {
            "id": query_id,
            "from": user.to_dict(),
            "message": copy.deepcopy(self._messages[key]),
            "chat_instance": str(zlib.crc32(str(state.chat.id).encode()) * 4_000_037),
            "data": data,
        }
        return self._enqueue("callback_query", query)

    def migrate_group(self, old_chat_id: int, new_chat_id: int, user: User | None = None) -> JSON:
        """Upgrade a group to a supergroup, as Telegram does.

        Enqueues the old chat's ``migrate_to_chat_id`` message (returned) and then the new
        chat's ``migrate_from_chat_id`` message; afterwards the old id answers 400 with
        ``parameters.migrate_to_chat_id``.
        """
        old = self._state(old_chat_id)
        new_chat = Chat(new_chat_id, "supergroup", title=old.chat.title)
        self.add_chat(new_chat)
        self._chats[new_chat_id].members.update(old.members)
        sender = user.to_dict() if user else dict(ANONYMOUS_ADMIN)
        to_message = self._new_message(old, sender, None)
        to_message["migrate_to_chat_id"] = new_chat_id
        update = self._enqueue("message", to_message)
        from_message = self._new_message(self._chats[new_chat_id], sender, None)
        from_message["migrate_from_chat_id"] = old_chat_id
        self._enqueue("message", from_message)
        old.migrated_to = new_chat_id
        return update

    def _incoming_chat(self, chat: Chat | int, user: User | None) -> _ChatState:
        if user is not None:
            self.users.setdefault(user.id, user)
        if isinstance(chat, int):
            chat = self._chats[chat].chat if chat in self._chats else self._default_chat(chat, user)
        state = self._chats.get(chat.id) or self._chats[self.add_chat(chat).id]
        if state.migrated_to is not None:
            raise ValueError(f"chat {chat.id} was migrated to {state.migrated_to}")
        if user is not None and state.chat.type == "private":
            self._started.add(user.id)
        elif user is not None:
            state.members.setdefault(user.id, "member")
        return state

    def _default_chat(self, chat_id: int, user: User | None) -> Chat:
        if chat_id > 0 and user is not None and user.id == chat_id:
            return Chat.private(user)
        if chat_id > 0:
            raise ValueError(f"unknown private chat {chat_id}")
        return Chat(chat_id, "supergroup", title=f"Group {chat_id}")

    def _user_message(
        self,
        state: _ChatState,
        sender: JSON,
        text: str,
        thread_id: int | None,
        reply_to: int | None,
    ) -> JSON:
        message = self._new_message(state, sender, thread_id)
        message["text"] = text
        entities = text_entities(text)
        if entities:
            message["entities"] = entities
        if reply_to is not None:
            target = self._messages.get((state.chat.id, reply_to))
            if target is None:
                raise ValueError(f"no message {reply_to} in chat {state.chat.id}")
            message["reply_to_message"] = self._quoted(target)
        self._messages[(state.chat.id, message["message_id"])] = message
        return copy.deepcopy(message)

    def _delivers(self, chat: Chat, message: JSON) -> bool:
        """Privacy mode: in groups the bot only gets commands, replies to it and mentions."""
        if chat.type == "private" or not self.privacy_mode:
            return True
        text = message.get("text", "")
        entities = message.get("entities") or []
        name = (self.bot_user.username or "").casefold()
        first = entities[0] if entities else None
        if first and first["type"] == "bot_command" and first["offset"] == 0:
            command = text.split()[0]
            return "@" not in command or command.split("@", 1)[1].casefold() == name
        reply = message.get("reply_to_message") or {}
        if reply.get("from", {}).get("id") == self.bot_user.id:
            return True
        return f"@{name}" in text.casefold()

    # ------------------------------------------------------------ messages

    def _now(self) -> int:
        return int(self._clock())

    def _new_message(self, state: _ChatState, sender: JSON, thread_id: int | None) -> JSON:
        message_id = state.next_message_id
        state.next_message_id += 1
        message: JSON = {
            "message_id": message_id,
            "from": sender,
            "date": self._now(),
            "chat": state.chat.to_dict(),
        }
        if thread_id is not None:
            message["message_thread_id"] = thread_id
            if state.chat.is_forum:
                message["is_topic_message"] = True
                message["reply_to_message"] = self._topic_root(state, thread_id, sender)
        return message

    def _topic_root(self, state: _ChatState, thread_id: int, sender: JSON) -> JSON:
        key = (state.chat.id, thread_id)
        if key not in self._messages:
            state.next_message_id = max(state.next_message_id, thread_id + 1)
            self._messages[key] = {
                "message_id": thread_id,
                "from": sender,
                "date": self._now(),
                "chat": state.chat.to_dict(),
                "message_thread_id": thread_id,
                "forum_topic_created": {"name": f"Topic {thread_id}", "icon_color": 7322096},
                "is_topic_message": True,
            }
        return self._quoted(self._messages[key])

    @staticmethod
    def _quoted(message: JSON) -> JSON:
        return {k: copy.deepcopy(v) for k, v in message.items() if k != "reply_to_message"}

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq

    def _record(self, action: str, key: tuple[int, int], message: JSON) -> None:
        raw = self._raw.get(key) or _Raw(text=message.get("text"))
        self.outbox.append(
            OutboxEntry(
                seq=self._next_seq(),
                action=action,
                chat_id=key[0],
                message_id=key[1],
                date=self._now(),
                message_thread_id=message.get("message_thread_id"),
                text=raw.text,
                parse_mode=raw.parse_mode,
                plain_text=str(message.get("text", message.get("caption")) or ""),
                reply_markup=copy.deepcopy(raw.reply_markup),
                reply_to_message_id=raw.reply_to_message_id,
                media_kind=raw.media_kind,
                filename=raw.upload.filename if raw.upload else None,
                content=raw.upload.content if raw.upload else None,
                file_ref=raw.file_ref,
                caption=raw.caption,
                receiver_user_id=(raw.ephemeral or {}).get("receiver_user_id"),
                callback_query_id=(raw.ephemeral or {}).get("callback_query_id"),
            )
        )
        self._notify("outbox")

    # ------------------------------------------------------------ the call interface

    def call(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """Run a Bot API method (case-insensitive); raise ``FakeApiError`` like Telegram."""
        handler = getattr(self, f"_m_{method.lower()}", None)
        if handler is None:
            raise FakeApiError(404, "Not Found")
        result = handler(coerce_params(params or {}))
        return copy.deepcopy(result)

    def respond(self, method: str, params: Mapping[str, Any] | None = None) -> tuple[int, JSON]:
        """HTTP status and response body of a call (``{"ok": true, "result": ...}``)."""
        try:
            return 200, {"ok": True, "result": self.call(method, params)}
        except FakeApiError as error:
            return error.error_code, error.to_json()

    # ------------------------------------------------------------ chat lookups

    def _state(self, chat_id: int) -> _ChatState:
        if chat_id not in self._chats:
            raise ValueError(f"unknown chat {chat_id}")
        return self._chats[chat_id]

    def _chat_param(self, params: JSON) -> _ChatState:
        chat_id = params.get("chat_id")
        if chat_id is None or chat_id == "":
            raise bad_request("chat_id is empty")
        if isinstance(chat_id, str):
            state = next(
                (s for s in self._chats.values() if f"@{s.chat.username}" == chat_id), None
            )
        else:
            state = self._chats.get(chat_id) or self._private_state(chat_id)
        if state is None:
            raise bad_request("chat not found")
        if state.migrated_to is not None:
            raise FakeApiError(
                400,
                "Bad Request: group chat was upgraded to a supergroup chat",
                {"migrate_to_chat_id": state.migrated_to},
            )
        return state

    def _private_state(self, chat_id: int) -> _ChatState | None:
        user = self.users.get(chat_id)
        if user is None or user.id == self.bot_user.id:
            return None
        return self._chats[self.add_chat(Chat.private(user)).id]

    def _writable(self, params: JSON) -> _ChatState:
        state = self._chat_param(params)
        if state.chat.type == "private":
            if state.chat.id not in self._started:
                raise FakeApiError(403, "Forbidden: bot can't initiate conversation with a user")
            return state
        status = state.members.get(self.bot_user.id, "left")
        kind = "supergroup" if state.chat.type == "supergroup" else "group"
        if status == "kicked":
            raise FakeApiError(403, f"Forbidden: bot was kicked from the {kind} chat")
        if status == "left":
            raise FakeApiError(403, f"Forbidden: bot is not a member of the {kind} chat")
        return state

    def _user_param(self, params: JSON) -> User:
        user = self.users.get(params.get("user_id", 0))
        if user is None:
            raise bad_request("user not found")
        return user

    # ------------------------------------------------------------ bot methods

    def _m_getme(self, params: JSON) -> JSON:
        return self.bot_user.to_dict() | {
            "can_join_groups": True,
            "can_read_all_group_messages": not self.privacy_mode,
            "supports_inline_queries": False,
            "can_connect_to_business": False,
            "has_main_web_app": False,
        }

    def _m_close(self, params: JSON) -> bool:
        return True

    def _m_logout(self, params: JSON) -> bool:
        return True

    def _m_getupdates(self, params: JSON) -> list[JSON]:
        if self.webhook is not None:
            raise FakeApiError(
                409,
                "Conflict: can't use getUpdates method while webhook is active; "
                "use deleteWebhook to delete the webhook first",
            )
        offset = int(params.get("offset") or 0)
        if offset > 0:
            self._updates = [u for u in self._updates if u["update_id"] >= offset]
        elif offset < 0:
            self._updates = self._updates[offset:]
        if "allowed_updates" in params:
            self._allowed_updates = list(params["allowed_updates"] or [])
        limit = min(max(int(params.get("limit") or 100), 1), 100)
        return [u for u in self._updates if self.is_allowed(u)][:limit]

    def _m_setwebhook(self, params: JSON) -> bool:
        url = str(params.get("url") or "")
        if not url:
            return self._m_deletewebhook(params)
        if not url.startswith(("https://", "http://")):
            raise bad_request("bad webhook: An HTTPS URL must be provided for webhook")
        secret = params.get("secret_token")
        if secret is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,256}", str(secret)):
            raise bad_request("secret token contains unallowed characters")
        if params.get("drop_pending_updates"):
            self._updates.clear()
        if "allowed_updates" in params:
            self._allowed_updates = list(params["allowed_updates"] or [])
        max_connections = min(max(int(params.get("max_connections") or 40), 1), 100)
        self.webhook = WebhookConfig(url, secret, max_connections)
        self._webhook_error = None
        self._notify("webhook")
        return True

    def _m_deletewebhook(self, params: JSON) -> bool:
        if params.get("drop_pending_updates"):
            self._updates.clear()
        self.webhook = None
        self._notify("webhook")
        return True

    def _m_getwebhookinfo(self, params: JSON) -> JSON:
        info: JSON = {
            "url": self.webhook.url if self.webhook else "",
            "has_custom_certificate": False,
            "pending_update_count": len(self._updates),
        }
        if self.webhook:
            info["max_connections"] = self.webhook.max_connections
            if self._allowed_updates:
                info["allowed_updates"] = list(self._allowed_updates)
        if self._webhook_error:
            info["last_error_date"], info["last_error_message"] = self._webhook_error
        return info

    def _m_setmycommands(self, params: JSON) -> bool:
        self._commands[_scope_key(params)] = _check_commands(params.get("commands"))
        return True

    def _m_deletemycommands(self, params: JSON) -> bool:
        self._commands.pop(_scope_key(params), None)
        return True

    def _m_getmycommands(self, params: JSON) -> list[JSON]:
        return self._commands.get(_scope_key(params), [])

    # ------------------------------------------------------------ chats and members

    def _m_getchat(self, params: JSON) -> JSON:
        return self._chat_param(params).chat.to_dict() | {
            "accent_color_id": 0,
            "max_reaction_count": 11,
            "accepted_gift_types": dict.fromkeys(
                (
                    "unlimited_gifts",
                    "limited_gifts",
                    "unique_gifts",
                    "premium_subscription",
                    "gifts_from_channels",
                ),
                False,
            ),
        }

    def _m_getchatmember(self, params: JSON) -> JSON:
        state = self._chat_param(params)
        user = self._user_param(params)
        if state.chat.type == "private":
            status = "member" if user.id in (state.chat.id, self.bot_user.id) else "left"
        else:
            status = state.members.get(user.id, "left")
        return _member(user.to_dict(), status)

    def _m_getchatadministrators(self, params: JSON) -> list[JSON]:
        state = self._chat_param(params)
        return [
            _member(self.users[user_id].to_dict(), status)
            for user_id, status in state.members.items()
            if status in ("creator", "administrator") and not self.users[user_id].is_bot
        ]

    def _m_getchatmembercount(self, params: JSON) -> int:
        state = self._chat_param(params)
        present = ("creator", "administrator", "member")
        return sum(status in present for status in state.members.values())

    def _m_sendchataction(self, params: JSON) -> bool:
        state = self._writable(params)
        actions = (
            "typing upload_photo record_video upload_video record_voice upload_voice "
            "upload_document choose_sticker find_location record_video_note upload_video_note"
        )
        if params.get("action") not in actions.split():
            raise bad_request("wrong parameter action in request")
        self.chat_actions.append({"chat_id": state.chat.id, "action": params["action"]})
        return True

    # ------------------------------------------------------------ sending

    def _m_sendmessage(self, params: JSON) -> JSON:
        state = self._writable(params)
        raw_text = str(params.get("text") or "")
        text, entities = render(raw_text, params.get("parse_mode"), params.get("entities"))
        if not text.strip():
            raise bad_request("message text is empty")
        if utf16_len(text) > TEXT_LIMIT:
            raise bad_request("message is too long")
        raw = _Raw(text=raw_text, parse_mode=params.get("parse_mode"))
        if "ephemeral_message_parameters" in params:
            raw.ephemeral = self._ephemeral(state, params["ephemeral_message_parameters"])
        body: JSON = {"text": text}
        if entities:
            body["entities"] = entities
        return self._send(state, params, raw, body)

    def _ephemeral(self, state: _ChatState, given: Any) -> JSON:
        """`EphemeralMessageParameters`, checked: a member of the group, the callback query
        (if any) theirs; refused as a server or client without them would."""
        if not self.ephemeral_supported:
            raise bad_request("can't parse request: unknown parameter ephemeral_message_parameters")
        if not isinstance(given, dict) or not isinstance(given.get("receiver_user_id"), int):
            raise bad_request("can't parse EphemeralMessageParameters: receiver_user_id required")
        unknown = given.keys() - {
            "receiver_user_id",
            "callback_query_id",
            "replace_callback_query_message",
        }
        if unknown:
            raise bad_request(f"can't parse EphemeralMessageParameters: unknown {sorted(unknown)}")
        receiver = given["receiver_user_id"]
        if state.chat.type == "private":
            raise bad_request("ephemeral messages can be sent only to groups")
        if state.members.get(receiver) not in ("creator", "administrator", "member"):
            raise bad_request("PARTICIPANT_ID_INVALID")
        query = given.get("callback_query_id")
        if query is not None and self._query_users.get(str(query)) != receiver:
            raise bad_request("QUERY_ID_INVALID")
        replace = given.get("replace_callback_query_message")
        if replace is not None and (not isinstance(replace, bool) or query is None):
            raise bad_request("replace_callback_query_message needs a callback_query_id")
        if receiver in self.ephemeral_refused:
            raise bad_request("EPHEMERAL_MESSAGE_UNSUPPORTED")
        return dict(given)

    def _m_sendphoto(self, params: JSON) -> JSON:
        return self._send_media(params, "photo")

    def _m_senddocument(self, params: JSON) -> JSON:
        return self._send_media(params, "document")

    def _send_media(self, params: JSON, kind: str) -> JSON:
        state = self._writable(params)
        upload, ref = self._media_param(params, kind)
        raw = _Raw(
            parse_mode=params.get("parse_mode"),
            media_kind=kind,
            upload=upload,
            file_ref=ref,
            caption=params.get("caption"),
        )
        body: JSON = {kind: self._media_object(kind, upload, ref)}
        body.update(self._caption(params))
        return self._send(state, params, raw, body)

    def _caption(self, params: JSON) -> JSON:
        if not params.get("caption"):
            return {}
        caption, entities = render(
            str(params["caption"]), params.get("parse_mode"), params.get("caption_entities")
        )
        if utf16_len(caption) > CAPTION_LIMIT:
            raise bad_request("message caption is too long")
        result: JSON = {"caption": caption}
        if entities:
            result["caption_entities"] = entities
        return result

    def _media_param(self, params: JSON, kind: str) -> tuple[UploadedFile | None, str | None]:
        value = params.get(kind)
        if isinstance(value, str) and value.startswith("attach://"):
            value = params.get(value.removeprefix("attach://"))
        if value is None:
            raise bad_request(f"there is no {kind} in the request")
        if isinstance(value, UploadedFile):
            if not value.content:
                raise bad_request("file must be non-empty")
            if kind == "photo" and _image_size(value.content) is None:
                raise bad_request("IMAGE_PROCESS_FAILED")
            return value, None
        if str(value) in self._files:
            return self._files[str(value)].upload, None
        if str(value).startswith(("http://", "https://")):
            return None, str(value)
        raise bad_request("wrong file identifier/HTTP URL specified")

    def _media_object(self, kind: str, upload: UploadedFile | None, ref: str | None) -> Any:
        """The message's ``photo`` (a list of sizes) or ``document`` field."""
        if upload is None:
            digest = hashlib.sha1(str(ref).encode()).hexdigest()
            by_url: JSON = {"file_id": f"url-{digest[:24]}", "file_unique_id": digest[:16]}
            return [by_url | {"width": 0, "height": 0}] if kind == "photo" else by_url
        stored = self._store_file(upload, kind)
        ids: JSON = {
            "file_id": stored.file_id,
            "file_unique_id": stored.unique_id,
            "file_size": len(upload.content),
        }
        if kind == "photo":
            width, height = _image_size(upload.content) or (0, 0)
            return [ids | {"width": width, "height": height}]
        return ids | {"file_name": upload.filename, "mime_type": upload.mime_type}

    def _store_file(self, upload: UploadedFile, kind: str) -> _StoredFile:
        digest = hashlib.sha1(upload.content).hexdigest()
        file_id = f"{kind[:3]}-{digest[:32]}"
        suffix = upload.filename.rsplit(".", 1)[-1] if "." in upload.filename else "bin"
        stored = _StoredFile(file_id, digest[:16], f"{kind}s/file_{digest[:12]}.{suffix}", upload)
        self._files[file_id] = stored
        return stored

    def _m_getfile(self, params: JSON) -> JSON:
        stored = self._files.get(str(params.get("file_id")))
        if stored is None:
            raise bad_request("invalid file_id")
        return {
            "file_id": stored.file_id,
            "file_unique_id": stored.unique_id,
            "file_size": len(stored.upload.content),
            "file_path": stored.path,
        }

    def _send(self, state: _ChatState, params: JSON, raw: _Raw, body: JSON) -> JSON:
        """Store and record a bot message: thread, reply and markup from ``params``."""
        markup = params.get("reply_markup")
        if markup is not None:
            _check_inline_keyboard(markup)
        target = self._reply_target(state, params)
        thread_id = params.get("message_thread_id")
        if thread_id is None and target is not None and state.chat.is_forum:
            thread_id = target.get("message_thread_id")
        message = self._new_message(state, self.bot_user.to_dict(), thread_id)
        message.update(body)
        if target is not None:
            message["reply_to_message"] = self._quoted(target)
            raw.reply_to_message_id = target["message_id"]
        raw.reply_markup = markup
        if _inline_markup(markup):
            message["reply_markup"] = markup
        key = (state.chat.id, message["message_id"])
        self._messages[key], self._raw[key] = message, raw
        self._record("sent", key, message)
        return message

    def _reply_target(self, state: _ChatState, params: JSON) -> JSON | None:
        reply = params.get("reply_parameters")
        if reply is None and params.get("reply_to_message_id") is not None:
            reply = {
                "message_id": params["reply_to_message_id"],
                "allow_sending_without_reply": params.get("allow_sending_without_reply"),
            }
        if not reply:
            return None
        target = self._messages.get((state.chat.id, int(reply["message_id"])))
        if target is None and not reply.get("allow_sending_without_reply"):
            raise bad_request("message to be replied not found")
        return target

    # ------------------------------------------------------------ editing and deleting

    def _bot_message(self, params: JSON, missing: str) -> tuple[tuple[int, int], JSON, _Raw]:
        if params.get("inline_message_id"):
            raise bad_request("inline messages are not supported by the fake Bot API")
        state = self._chat_param(params)
        key = (state.chat.id, int(params.get("message_id") or 0))
        message = self._messages.get(key)
        if message is None:
            raise bad_request(missing)
        if key not in self._raw:
            raise bad_request("message can't be edited")
        return key, message, self._raw[key]

    def _m_editmessagetext(self, params: JSON) -> JSON:
        key, message, raw = self._bot_message(params, "message to edit not found")
        if raw.media_kind:
            raise bad_request("there is no text in the message to edit")
        raw_text = str(params.get("text") or "")
        text, entities = render(raw_text, params.get("parse_mode"), params.get("entities"))
        if not text.strip():
            raise bad_request("message text is empty")
        markup = self._edited_markup(params)
        unchanged = (text, entities) == (message["text"], message.get("entities", []))
        if unchanged and _inline_markup(markup) == _inline_markup(raw.reply_markup):
            raise bad_request(NOT_MODIFIED)
        raw.text, raw.parse_mode = raw_text, params.get("parse_mode")
        message["text"] = text
        self._set_optional(message, "entities", entities)
        return self._apply_edit(key, message, raw, markup)

    def _m_editmessagecaption(self, params: JSON) -> JSON:
        key, message, raw = self._bot_message(params, "message to edit not found")
        if not raw.media_kind:
            raise bad_request("there is no caption in the message to edit")
        caption = self._caption(params)
        markup = self._edited_markup(params)
        old = {k: message[k] for k in ("caption", "caption_entities") if k in message}
        if caption == old and _inline_markup(markup) == _inline_markup(raw.reply_markup):
            raise bad_request(NOT_MODIFIED)
        raw.caption, raw.parse_mode = params.get("caption"), params.get("parse_mode")
        for name in ("caption", "caption_entities"):
            self._set_optional(message, name, caption.get(name))
        return self._apply_edit(key, message, raw, markup)

    def _m_editmessagereplymarkup(self, params: JSON) -> JSON:
        key, message, raw = self._bot_message(params, "message to edit not found")
        markup = self._edited_markup(params)
        if _inline_markup(markup) == _inline_markup(raw.reply_markup):
            raise bad_request(NOT_MODIFIED)
        return self._apply_edit(key, message, raw, markup)

    @staticmethod
    def _edited_markup(params: JSON) -> JSON | None:
        markup = params.get("reply_markup")
        if markup is not None:
            _check_inline_keyboard(markup)
        return _inline_markup(markup)

    @staticmethod
    def _set_optional(message: JSON, name: str, value: Any) -> None:
        if value:
            message[name] = value
        else:
            message.pop(name, None)

    def _apply_edit(
        self, key: tuple[int, int], message: JSON, raw: _Raw, markup: JSON | None
    ) -> JSON:
        """Edits drop the inline keyboard unless the call passes one (as in Telegram)."""
        raw.reply_markup = markup
        self._set_optional(message, "reply_markup", markup)
        message["edit_date"] = self._now()
        self._record("edited", key, message)
        return message

    def _m_deletemessage(self, params: JSON) -> bool:
        state = self._chat_param(params)
        self._delete(state, int(params.get("message_id") or 0))
        return True

    def _m_deletemessages(self, params: JSON) -> bool:
        state = self._chat_param(params)
        for message_id in params.get("message_ids") or []:
            if (state.chat.id, int(message_id)) in self._messages:
                self._delete(state, int(message_id))
        return True

    def _delete(self, state: _ChatState, message_id: int) -> None:
        key = (state.chat.id, message_id)
        message = self._messages.get(key)
        if message is None:
            raise bad_request("message to delete not found")
        is_admin = state.members.get(self.bot_user.id) in ("creator", "administrator")
        if key not in self._raw and state.chat.type != "private" and not is_admin:
            raise bad_request("message can't be deleted")
        self._record("deleted", key, message)
        del self._messages[key]

    # ------------------------------------------------------------ callback queries

    def _m_answercallbackquery(self, params: JSON) -> bool:
        query_id = str(params.get("callback_query_id") or "")
        if query_id not in self._queries:
            raise bad_request(
                "query is too old and response timeout expired or query ID is invalid"
            )
        text = params.get("text")
        if text is not None and len(str(text)) > 200:
            raise bad_request("MESSAGE_TOO_LONG")
        url = params.get("url")
        if url is not None and not str(url).startswith(
            f"https://t.me/{self.bot_user.username}?start="
        ):
            raise bad_request("URL_INVALID")  # only the bot's own t.me link with a start
        chat_id, message_id = self._queries.pop(query_id)
        answer = CallbackAnswer(
            seq=self._next_seq(),
            callback_query_id=query_id,
            text=text,
            show_alert=bool(params.get("show_alert", False)),
            url=params.get("url"),
            chat_id=chat_id,
            message_id=message_id,
        )
        self.callback_answers.append(answer)
        self._notify("outbox")
        return True


def outbox_json(entries: Iterable[OutboxEntry]) -> list[JSON]:
    """Outbox entries as JSON-ready dicts."""
    return [entry.to_json() for entry in entries]
