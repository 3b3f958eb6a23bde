"""The offline console: lines ``Speaker: message`` in, the bot's replies out as plain text.

``run_console`` drives a PTB ``Application`` whose requests go to an ``OfflineBotApi`` (through
``bot.console.offline.OfflineRequest``). It owns the application's lifecycle: pass it *not*
initialized; it runs initialize, ``post_init``, start, ..., stop, ``post_stop``, shutdown,
``post_shutdown`` (as ``run_polling`` does, without the updater). An application that is
already running is used as is and left running.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import threading
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from pathlib import Path
from typing import Any, TextIO

from telegram import Update

from bot.console.offline import CallbackAnswer, Chat, OfflineBotApi, OutboxEntry, UploadedFile, User
from bot.i18n import translator
from bot.ptb_types import AnyApplication
from service.admin import ADMIN_ONLY
from service.language import LANGUAGES

CONSOLE_TITLE = "console"
FIRST_SPEAKER = "me"
HANDLER_WAIT_SECONDS = 30.0
NAME_ADMINS = (
    "(console: {who}; group admins are named when the console starts: "
    "jifen console --admins NAME,NAME)"
)
BANNER = "jifen console: type 'Name: /command' or 'Name: [Button]'; Ctrl-D quits\n"
_SPEAKER = re.compile(r"^([^\s:：/\[#][^:：]{0,63}?)\s*[:：]\s?(.*)$")
_BUTTON = re.compile(r"^\[(.+)\]$")
#: `老王 (guest): @jifen_bot 老王+30 小李`: a mention in another chat, one without the bot
#: (guest mode, Bot API 10.0).
_GUEST = re.compile(r"^(.*?)\s*[(（](?:guest|访客)[)）]$", re.IGNORECASE)
GUEST_CHAT = "(as a guest, in a chat without the bot)"
NOT_SEEN = "(the bot does not see this: in a group it gets only commands, replies to it, @{bot})"


def console_user(name: str) -> User:
    """The user behind a speaker name: id stable across runs, language from the name."""
    return User.named(name)


def parse_line(line: str, speaker: str) -> tuple[str, str] | None:
    """``(speaker, message)`` of an input line; None for blank lines and ``#`` comments."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    match = _SPEAKER.match(text)
    if match is None:
        return speaker, text
    return match.group(1).strip(), match.group(2).strip()


class _Lines:
    """Input lines from a list or a stream (read on a daemon thread); ``stop`` ends them."""

    def __init__(self, lines: Iterable[str] | TextIO) -> None:
        self._stopped = False
        self._queue: asyncio.Queue[str | None] | None = None
        self._iter: Iterator[str] | None = None
        if hasattr(lines, "readline"):
            self._queue = asyncio.Queue()
            loop = asyncio.get_running_loop()
            args = (lines, loop, self._queue)
            threading.Thread(target=_pump, args=args, daemon=True).start()
        else:
            items = lines.splitlines() if isinstance(lines, str) else lines
            self._iter = (part for item in items for part in (item.splitlines() or [""]))

    async def next(self) -> str | None:
        """The next line, or None at the end (EOF or stopped)."""
        if self._stopped:
            return None
        if self._queue is not None:
            return await self._queue.get()
        return next(self._iter, None) if self._iter is not None else None

    @property
    def stopped(self) -> bool:
        """Whether ``stop`` ended the input."""
        return self._stopped

    def stop(self) -> None:
        """End the input (Ctrl-C)."""
        self._stopped = True
        if self._queue is not None:
            self._queue.put_nowait(None)


def _pump(
    stream: TextIO, loop: asyncio.AbstractEventLoop, queue: asyncio.Queue[str | None]
) -> None:
    """Copy lines of a blocking stream into an asyncio queue; None at EOF."""
    with contextlib.suppress(Exception):
        for line in iter(stream.readline, ""):
            loop.call_soon_threadsafe(queue.put_nowait, line)
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(queue.put_nowait, None)


def _nothing() -> None:
    """No-op."""


def _on_ctrl_c(lines: _Lines, out: TextIO) -> Callable[[], None]:
    """Make Ctrl-C end the input after the current line; returns the undo function."""
    if threading.current_thread() is not threading.main_thread():
        return _nothing
    loop = asyncio.get_running_loop()
    previous = signal.getsignal(signal.SIGINT)

    def restore() -> None:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGINT)
            signal.signal(signal.SIGINT, previous)

    def interrupted() -> None:
        out.write("\n")
        lines.stop()
        restore()  # a second Ctrl-C interrupts for real

    try:
        loop.add_signal_handler(signal.SIGINT, interrupted)
    except (NotImplementedError, RuntimeError, ValueError):
        return _nothing
    return restore


async def start_application(application: AnyApplication) -> None:
    """initialize, post_init, start: what run_polling does, without an updater."""
    await application.initialize()
    if application.post_init:
        await application.post_init(application)
    await application.start()


async def stop_application(application: AnyApplication) -> None:
    """stop, post_stop, shutdown, post_shutdown."""
    if application.running:
        await application.stop()
        if application.post_stop:
            await application.post_stop(application)
    await application.shutdown()
    if application.post_shutdown:
        await application.post_shutdown(application)


def _button_line(row: list[dict[str, Any]]) -> str:
    return " ".join(_button_label(button) for button in row)


def _button_label(button: dict[str, Any]) -> str:
    """`[Undo]`; a disabled button `[↩️ Undone (disabled)]`; a copy button `[📋 … (copies)]`."""
    if "disabled" in button:
        return f"[{button['text']} (disabled)]"
    if "copy_text" in button:
        return f"[{button['text']} (copies)]"
    return f"[{button['text']}]"


def other_labels(label: str) -> tuple[str, ...]:
    """``label`` in the other language of the catalogs: an English msgid's Chinese text, or the
    English msgid(s) of a Chinese text."""
    catalog: dict[str, str] = getattr(translator("zh"), "_catalog", {})
    wanted = label.casefold()
    out = [zh for en, zh in catalog.items() if isinstance(en, str) and en.casefold() == wanted]
    out += [en for en, zh in catalog.items() if isinstance(en, str) and zh.casefold() == wanted]
    return tuple(text for text in out if text)


def _any_of(labels: set[str]) -> Callable[[str, str], bool]:
    return lambda text, _label: text.casefold() in labels


class _Console:
    """One console session over one supergroup chat."""

    def __init__(
        self,
        application: AnyApplication,
        api: OfflineBotApi,
        out: TextIO,
        chat: Chat,
        admins: Collection[str],
        files_dir: Path,
    ) -> None:
        self.application = application
        self.api = api
        self.out = out
        self.chat = api.add_chat(chat)
        self.admins = {name.casefold() for name in admins}
        self.admin_names = tuple(admins)
        self.files_dir = files_dir
        self.speaker = FIRST_SPEAKER
        self.seen = api.last_seq
        self.shown: dict[tuple[int, int], str] = {}  # (chat, message) → the text printed last
        self.guest_chat = Chat(chat.id - 1, "supergroup", title="guests")  # the bot is not in it

    def user(self, name: str) -> User:
        """The speaker's user, an administrator of the chat if named in ``admins``."""
        user = console_user(name)
        status = "administrator" if name.casefold() in self.admins else "member"
        self.api.set_member(self.chat.id, user, status)
        return user

    async def handle(self, line: str) -> None:
        """Send one input line to the bot and print what it did."""
        parsed = parse_line(line, self.speaker)
        if parsed is None:
            return
        self.speaker, text = parsed
        if not text:
            return
        guest = _GUEST.match(self.speaker)
        if guest is not None:
            self.api.guest_text(self.guest_chat, console_user(guest.group(1)), text)
            await self.deliver()
            self.show()
            return
        user = self.user(self.speaker)
        button = _BUTTON.match(text)
        if button and not self.press(user, button.group(1).strip()):
            return
        if not button:
            self.api.send_text(self.chat, user, text)
        await self.deliver()
        self.show()

    def press(self, user: User, label: str) -> bool:
        """Press the button labelled ``label`` on the latest bot message that has one."""
        found = self.find_button(label)
        if found is None:
            self.print(f"(no button [{label}] on the bot's messages)")
            return False
        message_id, button = found
        if "disabled" in button:
            self.print(f"(the button [{button['text']}] is disabled: it does nothing)")
            return False
        if "copy_text" in button:
            self.print(f"(copied: {button['copy_text'].get('text', '')})")
            return False
        if "callback_data" not in button:
            self.print(f"(the button [{button['text']}] opens {button.get('url', 'something')})")
            return False
        self.api.press_button(self.chat, user, message_id, button["callback_data"])
        return True

    def find_button(self, label: str) -> tuple[int, dict[str, Any]] | None:
        """The (message id, button) for ``label``: exact text first, then case-insensitive, then
        the same label in the other language (``[Undo]`` presses ``[撤销]`` and back)."""
        labels = {label.casefold(), *(other.casefold() for other in other_labels(label))}
        for message in reversed(self.api.bot_messages(self.chat.id)):
            rows = (message.get("reply_markup") or {}).get("inline_keyboard") or []
            buttons = [button for row in rows for button in row]
            for same in (str.__eq__, lambda a, b: a.casefold() == b.casefold(), _any_of(labels)):
                match = next((b for b in buttons if same(b["text"], label)), None)
                if match is not None:
                    return message["message_id"], match
        return None

    async def deliver(self) -> None:
        """Feed the bot every update Telegram would deliver now (privacy mode applies)."""
        updates = self.api.take_updates()
        if not updates:
            self.print(NOT_SEEN.format(bot=self.api.bot_user.username))
        for update in updates:
            await self.process(update)

    async def process(self, update: dict[str, Any]) -> None:
        """process_update, then wait for tasks it spawned (non-blocking handlers)."""
        before = asyncio.all_tasks()
        await self.application.process_update(Update.de_json(update, self.application.bot))
        deadline = time.monotonic() + HANDLER_WAIT_SECONDS
        while (remaining := deadline - time.monotonic()) > 0:
            current = asyncio.current_task()
            spawned = {t for t in asyncio.all_tasks() - before if not t.done() and t is not current}
            if not spawned:
                return
            await asyncio.wait(spawned, timeout=remaining)

    def show(self) -> None:
        """Print the bot's messages and answers since the last call."""
        entries: list[OutboxEntry | CallbackAnswer] = [
            *self.api.outbox_since(self.seen),
            *self.api.answers_since(self.seen),
        ]
        for entry in sorted(entries, key=lambda e: e.seq):
            if isinstance(entry, CallbackAnswer):
                self.show_answer(entry)
            elif entry.action != "deleted" and not self.only_buttons_changed(entry):
                self.show_message(entry)
        self.seen = self.api.last_seq
        self.out.flush()

    def only_buttons_changed(self, entry: OutboxEntry) -> bool:
        """An edit that only took buttons away (after Undo or Confirm) is not printed again."""
        key = (entry.chat_id, entry.message_id)
        same = entry.action == "edited" and self.shown.get(key) == entry.plain_text
        self.shown[key] = entry.plain_text
        return same and not entry.buttons

    def show_answer(self, answer: CallbackAnswer) -> None:
        """A callback query answer with text: an alert or a toast."""
        if answer.text:
            kind = "alert" if answer.show_alert else "toast"
            self.print(f"({kind}) {answer.text}")
            self.explain_admins(answer.text)
        if answer.url:
            self.print(f"(opens {answer.url})")

    def show_message(self, entry: OutboxEntry) -> None:
        """A message as plain text, its files saved, then its buttons and a blank line."""
        lines: list[str] = []
        if entry.chat_id == self.guest_chat.id:
            lines.append(GUEST_CHAT)
        elif entry.chat_id != self.chat.id:
            lines.append(f"(to chat {entry.chat_id})")
        if entry.receiver is not None:
            lines.append(f"(only {entry.receiver} sees)")
        if entry.file is not None:
            kind = "photo" if entry.media_kind == "photo" else "file"
            lines.append(f"({kind}) {self.save(entry.file, f'{kind}-{entry.message_id}')}")
        if entry.plain_text:
            lines.append(entry.plain_text)
        lines += [_button_line(row) for row in entry.buttons]
        self.print("\n".join(lines))
        self.explain_admins(entry.plain_text)

    def explain_admins(self, text: str) -> None:
        """After an admin-only refusal: how admins are named in the console."""
        if not any(translator(lang).gettext(ADMIN_ONLY) in text for lang in LANGUAGES):
            return
        names = ", ".join(self.admin_names)
        who = f"the admins are {names}" if names else "nobody is admin"
        self.print(NAME_ADMINS.format(who=who))

    def save(self, file: UploadedFile, fallback_name: str) -> str:
        """Write a photo/document into ``files_dir``; its path."""
        self.files_dir.mkdir(parents=True, exist_ok=True)
        path = self.files_dir / (Path(file.filename).name or fallback_name)
        path.write_bytes(file.content)
        return str(path)

    def print(self, text: str) -> None:
        """Write a block followed by a blank line."""
        self.out.write(f"{text}\n\n")


async def run_console(
    application: AnyApplication,
    api: OfflineBotApi,
    lines: Iterable[str] | TextIO,
    out: TextIO,
    *,
    chat_id: int = -100100,
    admins: Collection[str] = (),
    files_dir: Path,
) -> None:
    """Run the console until the input ends (EOF) or Ctrl-C; see the module docstring."""
    api.next_update_id = max(api.next_update_id, int(time.time() * 1000))
    chat = Chat(chat_id, "supergroup", title=CONSOLE_TITLE)
    console = _Console(application, api, out, chat, admins, files_dir)
    source = _Lines(lines)
    interactive = bool(getattr(lines, "isatty", lambda: False)())
    owns = not application.running
    restore: Callable[[], None] = _nothing
    try:
        if owns:
            await start_application(application)
        restore = _on_ctrl_c(source, out)
        if interactive:
            out.write(BANNER)
        while True:
            if interactive:
                out.write(f"{console.speaker}> ")
                out.flush()
            line = await source.next()
            if line is None:
                if interactive and not source.stopped:
                    out.write("\n")
                break
            await console.handle(line)
    finally:
        restore()
        if owns:
            await stop_application(application)
