"""Fixtures and helpers of the end-to-end tests: the bot as a process against the emulator.

Fixtures (each owns an emulator subprocess on a free port that accepts only ``TOKEN``):
``bots`` — a test's own emulator and database, the test starts (and stops) bot processes with
``bots.start()``; ``polling`` / ``webhook`` — one long-polling / webhook bot shared by the
module's tests, each test playing in its own chat (``.group()``). Bots are
``tests.botprocess.BotProcess``es; every process is terminated (then killed) at teardown
whatever happened, and its log printed (pytest shows it when a test failed).

``Group`` plays one supergroup through the emulator's test controls and waits for the bot's
answers by long polling the outbox (no fixed sleeps). ``parse_standings`` and friends read the
plain text of the replies.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import re
import socket
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.botprocess import BotProcess, bot_env, free_port
from tests.emulator.api import BOT_USER_ID
from tests.emulator.server import EmulatorClient, EmulatorProcess

TOKEN = "123456:ABCdefGHIjklMNOpqrSTUvwxYZ_e2e-0123456789"
WEBHOOK_SECRET = "e2e-webhook-Secret_42"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
BOT_USER = {"id": BOT_USER_ID, "is_bot": True, "first_name": "jifen", "username": "jifen_bot"}
REPLY_TIMEOUT = 30.0

JSON = dict[str, Any]
_chat_ids = itertools.count(-100_500_000_001, -1)


# ---------------------------------------------------------------- users and chats


def user(name: str, uid: int, lang: str = "en", username: str | None = None) -> JSON:
    """A Bot API ``User`` dict."""
    data: JSON = {"id": uid, "is_bot": False, "first_name": name, "language_code": lang}
    return data | ({"username": username} if username else {})


def new_chat_id() -> int:
    """A supergroup id no other test uses."""
    return next(_chat_ids)


def port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    """Poll ``condition`` (tiny sleeps) until it holds; AssertionError after ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"{what}: not within {timeout} s"
        time.sleep(0.05)


# ---------------------------------------------------------------- reading replies

_STANDING = re.compile(r"^\d+\. (?P<name>.+) (?P<amount>[+-]\d+(?:\.\d+)?|0)$")
_TRANSFER = re.compile(r"^\s+(?P<payer>.+?) → (?P<payee>.+?) (?P<amount>\d+(?:\.\d+)?)(?: · .*)?$")
_SCORE = re.compile(r"^(?P<name>.+) (?P<amount>[+-]\d+(?:\.\d+)?|0)$")
_NET = "Net this hand: "
CJK = re.compile("[\u3400-\u4dbf\u4e00-\u9fff]")


def parse_standings(text: str) -> dict[str, dict[str, Fraction]]:
    """``{section: {name: balance}}`` of a /standings reply (plain text).

    Every ranked line must end with the balance as a signed number (``+36``, ``-12``, ``0``,
    ``+22.5``): a ranked line that does not is an AssertionError.
    """
    sections: dict[str, dict[str, Fraction]] = {}
    current: dict[str, Fraction] | None = None
    for line in text.splitlines()[1:]:
        if line.endswith((":", "：")):
            current = sections.setdefault(line.rstrip(":："), {})
        elif re.match(r"^\d+\. ", line):
            match = _STANDING.match(line)
            assert match, f"a standings line does not end with a signed balance: {line!r}"
            assert current is not None, f"a standings line outside a section: {line!r}"
            current[match["name"]] = Fraction(match["amount"])
    return sections


def balances(text: str) -> dict[str, Fraction]:
    """The balances of a /standings reply with at most one section."""
    sections = parse_standings(text)
    assert len(sections) <= 1, f"expected one section: {text!r}"
    return next(iter(sections.values()), {})


def transfers(text: str) -> list[tuple[str, str, Fraction]]:
    """The ``payer → payee amount`` lines of a mahjong reply."""
    return [
        (m["payer"], m["payee"], Fraction(m["amount"]))
        for m in map(_TRANSFER.match, text.splitlines())
        if m
    ]


def k510_scores(text: str) -> dict[str, Fraction]:
    """Each player's net of a 510K hand reply: its ``Net this hand: A +22.5 · B 0 …`` line."""
    nets = [line for line in text.splitlines() if line.startswith(_NET)]
    assert len(nets) == 1, f"no net line in {text!r}"
    found = {}
    for part in nets[0].removeprefix(_NET).split(" · "):
        match = _SCORE.match(part)
        assert match, f"not 'name amount': {part!r}"
        found[match["name"]] = Fraction(match["amount"])
    return found


def settle(
    before: dict[str, Fraction], payments: list[tuple[str, str, Fraction]]
) -> dict[str, Fraction]:
    """Balances after the payments."""
    after = dict(before)
    for payer, payee, amount in payments:
        after[payer] = after.get(payer, Fraction(0)) - amount
        after[payee] = after.get(payee, Fraction(0)) + amount
    return after


def nums(values: dict[str, int | float | str]) -> dict[str, Fraction]:
    """Expected balances as exact numbers (``2.5`` → ``Fraction(5, 2)``)."""
    return {name: Fraction(str(value)) for name, value in values.items()}


def buttons(entry: JSON) -> list[JSON]:
    """The inline buttons of an outbox entry, flattened."""
    rows = (entry.get("reply_markup") or {}).get("inline_keyboard") or []
    return [button for row in rows for button in row]


def button_data(entry: JSON, prefix: str, *, required: bool = True) -> str:
    """The callback data of the entry's one button starting with ``prefix`` ("" if none and
    not ``required``)."""
    data = [b.get("callback_data", "") for b in buttons(entry)]  # a copy button has none
    found = [d for d in data if d.startswith(prefix)]
    if not found and not required:
        return ""
    assert len(found) == 1, f"no single {prefix!r} button on {entry!r}"
    return str(found[0])


# ---------------------------------------------------------------- a group chat


@dataclass
class Group:
    """One supergroup driven through the emulator; waits for the bot's replies."""

    client: EmulatorClient
    chat_id: int = field(default_factory=new_chat_id)
    title: str = "mahjong night"
    last_update: JSON | None = None  # the last update sent with say() or press()

    @property
    def chat(self) -> JSON:
        return {"id": self.chat_id, "type": "supergroup", "title": self.title}

    def mark(self) -> int:
        """The current outbox position (``since`` of the next wait)."""
        return self.client.last_seq()

    def entries(self, since: int) -> list[JSON]:
        """The bot's messages in this chat after ``since`` (sent, edited, deleted)."""
        return self.client.outbox(self.chat_id, since)

    def wait_entries(
        self,
        since: int,
        done: Callable[[list[JSON]], bool],
        timeout: float = REPLY_TIMEOUT,
        what: str = "the bot's reply",
    ) -> list[JSON]:
        """Outbox entries after ``since`` once ``done(entries)``; long polls, bounded."""
        deadline = time.monotonic() + timeout
        entries = self.entries(since)
        while not done(entries):
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(f"{what}: not there after {timeout} s; got {entries!r}")
            last = entries[-1]["seq"] if entries else since
            with contextlib.suppress(TimeoutError):
                self.client.wait_for_reply(self.chat_id, last, timeout=min(remaining, 10.0))
            entries = self.entries(since)
        return entries

    def say(self, sender: JSON, text: str, timeout: float = REPLY_TIMEOUT) -> JSON:
        """Send ``text`` as ``sender``; the bot's one new message in reply."""
        since = self.mark()
        self.last_update = self.client.send(self.chat, sender, text)
        entries = self.wait_entries(since, _has_sent, timeout, f"reply to {text!r}")
        sent = [e for e in entries if e["action"] == "sent"]
        assert len(sent) == 1, f"{text!r} got {len(sent)} messages: {sent!r}"
        return sent[0]

    def text(self, sender: JSON, text: str, timeout: float = REPLY_TIMEOUT) -> str:
        """The plain text of the bot's reply to ``text``."""
        return str(self.say(sender, text, timeout)["plain_text"])

    def deliver(self, bot: BotProcess, update: JSON, secret: str | None = WEBHOOK_SECRET) -> JSON:
        """POST ``update`` to the bot's webhook ourselves; the bot's one new message."""
        assert bot.env["WEBHOOK_URL"], "not a webhook bot"
        since = self.mark()
        response = post_update(bot.env["WEBHOOK_URL"], update, secret)
        assert response.status_code == 200, response
        entries = self.wait_entries(since, _has_sent, what="reply to a posted update")
        sent = [e for e in entries if e["action"] == "sent"]
        assert len(sent) == 1, sent
        return sent[0]

    def redeliver(self, bot: BotProcess, update: JSON, sender: JSON) -> list[str]:
        """POST an update already handled (Telegram saw no answer): 200, and what the bot
        sent since, /standings' reply last (the update answers with what it recorded)."""
        since = self.mark()
        response = post_update(bot.env["WEBHOOK_URL"], update, WEBHOOK_SECRET)
        assert response.status_code == 200, response
        return self.drain(sender, since)[0]

    def standings(self, sender: JSON, args: str = "") -> dict[str, Fraction]:
        """This season's balances (or a season's with ``args``) as the bot shows them."""
        reply = self.text(sender, f"/standings {args}".strip())
        assert "season" in reply.lower() or "赛季" in reply, reply
        return balances(reply)

    def drain(self, sender: JSON, since: int) -> tuple[list[str], dict[str, Fraction]]:
        """Send /standings and wait for its reply: the bot handles a chat's updates in order,
        so everything caused by earlier updates is in by then. The texts the bot sent after
        ``since`` (the standings last) and the balances."""
        self.client.send(self.chat, sender, "/standings")
        entries = self.wait_entries(since, _has_standings, what="the /standings reply")
        texts = [str(e["plain_text"]) for e in entries if e["action"] == "sent"]
        assert _has_standings(entries[-1:]), texts
        return texts, balances(texts[-1])

    def press(self, sender: JSON, message_id: int, data: str) -> int:
        """Press a button of a bot message; returns the ``since`` to wait from."""
        since = self.mark()
        self.last_update = self.client.press(self.chat, sender, message_id, data)
        return since

    def press_ok(self, sender: JSON, entry: JSON, data: str) -> tuple[JSON, JSON]:
        """Press a button that acts: its answer (no alert) and the new message the bot sent."""
        since = self.press(sender, entry["message_id"], data)
        entries = self.wait_entries(since, _has_sent, what=f"reply to pressing {data!r}")
        answer = self.wait_answer(since)
        assert not answer["show_alert"], answer
        [sent] = [e for e in entries if e["action"] == "sent"]
        return answer, sent

    def press_refused(self, sender: JSON, entry: JSON, data: str) -> JSON:
        """Press a button that must be refused with an alert; nothing is sent or edited."""
        since = self.press(sender, entry["message_id"], data)
        answer = self.wait_answer(since)
        assert answer["show_alert"] and answer["text"], answer
        assert answer["message_id"] == entry["message_id"], answer
        assert self.entries(since) == [], "a refused press changed messages"
        return answer

    def wait_answer(self, since: int, timeout: float = REPLY_TIMEOUT) -> JSON:
        """The first callback query answer after ``since`` (answers cannot be long polled)."""
        deadline = time.monotonic() + timeout
        while True:
            answers = [a for a in self.client.answers(since) if a["chat_id"] == self.chat_id]
            if answers:
                return answers[0]
            assert time.monotonic() < deadline, f"no callback answer within {timeout} s"
            time.sleep(0.05)

    def last_with_button(self, prefix: str) -> JSON:
        """The latest message the bot sent here with a button whose data starts with prefix."""
        sent = [e for e in self.entries(0) if e["action"] == "sent"]
        with_button = [e for e in sent if button_data(e, prefix, required=False)]
        assert with_button, f"no message with a {prefix!r} button"
        return with_button[-1]

    def message_state(self, message_id: int) -> JSON:
        """The last outbox entry of one bot message (its current text and buttons)."""
        return [e for e in self.entries(0) if e["message_id"] == message_id][-1]


@dataclass
class Private(Group):
    """A member's private chat with the bot."""

    member: dict | None = None

    @property
    def chat(self) -> dict:
        assert self.member is not None
        return {"id": self.member["id"], "type": "private", "first_name": self.member["first_name"]}


def private(bots: Bots, member: dict) -> Private:
    """The member's private chat with the bot."""
    return Private(bots.client, chat_id=member["id"], title="", member=member)


def _has_sent(entries: list[JSON]) -> bool:
    return any(e["action"] == "sent" for e in entries)


def _has_standings(entries: list[JSON]) -> bool:
    return any(e["plain_text"].startswith("Standings of season") for e in entries)


# ---------------------------------------------------------------- webhook requests


def message_update(template: JSON, text: str, update_id: int, message_id: int) -> JSON:
    """A message update shaped like ``template`` (an emulator update) with another text."""
    message = json.loads(json.dumps(template["message"]))
    message |= {"message_id": message_id, "text": text, "date": int(time.time())}
    command = text.split()[0]
    message["entities"] = [{"type": "bot_command", "offset": 0, "length": len(command)}]
    return {"update_id": update_id, "message": message}


def post_update(url: str, update: JSON, secret: str | None) -> httpx.Response:
    """POST an update to the bot's webhook as Telegram does (with ``secret`` if given)."""
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers[SECRET_HEADER] = secret
    return httpx.post(url, content=json.dumps(update), headers=headers, timeout=REPLY_TIMEOUT)


class Bots:
    """Starts bot processes against one emulator; ``close()`` stops every one of them."""

    def __init__(self, emulator: EmulatorProcess, client: EmulatorClient, workdir: Path) -> None:
        self.emulator = emulator
        self.client = client
        self.workdir = workdir
        self.database = workdir / "jifen.sqlite3"
        self.started: list[BotProcess] = []

    def start(
        self, *, webhook: bool = False, token: str = TOKEN, ready: bool = True, **more: str
    ) -> BotProcess:
        """A new bot process on this test's database (waits until it is ready); `more`: other
        environment variables."""
        env = bot_env(
            **more,
            TELEGRAM_BOT_TOKEN=token,
            TELEGRAM_API_BASE_URL=self.emulator.api_base_url,
            DATABASE_URL=f"sqlite:///{self.database}",
            JIFEN_DATA_DIR=str(self.workdir / "data"),
            WEBHOOK_LISTEN="127.0.0.1",
        )
        if webhook:
            port = free_port()
            url = f"http://127.0.0.1:{port}/hook"
            env |= {"WEBHOOK_URL": url, "WEBHOOK_SECRET": WEBHOOK_SECRET, "WEBHOOK_PORT": str(port)}
        log_path = self.workdir / f"bot-{len(self.started) + 1}.log"
        bot = BotProcess(env, log_path, cwd=self.workdir).start()
        self.started.append(bot)
        return bot.wait_ready(lambda: self._webhook_ready(bot)) if ready else bot

    def _webhook_ready(self, bot: BotProcess) -> bool:
        """A polling bot is ready once started; a webhook bot once its webhook is set and its
        port listens."""
        url = bot.env["WEBHOOK_URL"]
        if not url:
            return True
        return self.client.health()["webhook"] == url and port_open(int(bot.env["WEBHOOK_PORT"]))

    @property
    def bot(self) -> BotProcess:
        """The first bot started (the shared one of a ``polling``/``webhook`` stack)."""
        return self.started[0]

    def group(self, title: str = "mahjong night") -> Group:
        """A fresh supergroup on this emulator."""
        return Group(self.client, title=title)

    def close(self) -> None:
        """Stop every process started here, then print their logs (pytest shows them when a
        test failed)."""
        for bot in self.started:
            bot.close()
        for bot in self.started:
            print(f"----- {bot.log_path.name} (exit {bot.returncode})\n{bot.log()}")


@contextlib.contextmanager
def stack(workdir: Path, *, start: str | None) -> Iterator[Bots]:
    """An emulator, its control client and a bot runner (with a bot started in ``start`` mode:
    "polling" or "webhook"); everything stopped on the way out, whatever happened."""
    with EmulatorProcess(token=TOKEN) as emulator, emulator.client() as client:
        runner = Bots(emulator, client, workdir)
        try:
            if start is not None:
                runner.start(webhook=start == "webhook")
            yield runner
        finally:
            runner.close()


@pytest.fixture
def bots(tmp_path: Path) -> Iterator[Bots]:
    """A test's own emulator; the test starts (and may stop) bot processes on its database."""
    with stack(tmp_path, start=None) as runner:
        yield runner


@pytest.fixture(scope="module")
def polling(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bots]:
    """A long-polling bot shared by the module's tests (each plays in its own chat)."""
    with stack(tmp_path_factory.mktemp("polling"), start="polling") as runner:
        yield runner


@pytest.fixture(scope="module")
def webhook(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Bots]:
    """A webhook bot shared by the module's tests (each plays in its own chat)."""
    with stack(tmp_path_factory.mktemp("webhook"), start="webhook") as runner:
        yield runner


@pytest.fixture(autouse=True)
def _shared_bot_log(request: pytest.FixtureRequest) -> Iterator[None]:
    """What a shared bot logged during a test (pytest shows it when the test failed)."""
    names = [name for name in ("polling", "webhook") if name in request.fixturenames]
    bots = [request.getfixturevalue(name).bot for name in names]
    offsets = [len(bot.log()) for bot in bots]
    yield
    for bot, offset in zip(bots, offsets, strict=True):
        print(f"----- {bot.log_path.name} during this test\n{bot.log()[offset:]}")
