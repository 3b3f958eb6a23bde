"""Soak: two webhook workers (`jifen run`) on a PostgreSQL server of the test's own, restarted
twice mid-run, take a mixed stream of updates shaped as Telegram sends them.

The scripted game nights of `tests.scale.scenario` (their ledger computed beforehand with the
pure scoring package) are played with noise between their commands, in the same chats: edits of
commands, forwarded chatter, members joining, polls in the shape of an older Bot API (PTB
cannot build them: acknowledged and skipped), stale button presses, and in chats of their own
channel posts and a member flooding /standings; every update is delivered again now and then,
and malformed bodies are posted too. Like Telegram, a delivery is repeated until answered 2xx,
a chat's next update waits for the answer of the one before. Afterwards the database must equal
the expected ledger exactly, each scripted command must have had its reply, and one more only
when delivered again (a redelivered update answers with what was recorded: the webhook answers
once its replies are sent), and the figures are printed: updates sent, lost, doubled, the
longest webhook answer, the workers' peak memory.
Bounded (about two minutes on two busy cores), loopback only.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bot.delivery.transient import NOTICE
from storage.db import make_engine
from tests.botprocess import BotProcess, bot_env, free_port
from tests.emulator.server import EmulatorClient, EmulatorProcess
from tests.reliability.pgserver import PgServer
from tests.reliability.test_transient import ZH_NOTICE
from tests.reliability.test_transport import OLD_POLL
from tests.scale.scenario import ChatScript, build_scripts, interleave, ledger_problems
from tests.scale.test_scale import Worker, chat_of, update_body, user_of, wait_ready

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

SEED = 15_02
CHATS = 8
UPDATES = 480
WORKERS = 2
NOISE = 0.5  # noise updates per scripted one
REDELIVER = 0.08
TOKEN = "123456:SOAK-test-token_0123456789abcdef"
SECRET = "soak-Webhook-Secret_15"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
FIRST_CHAT_ID = -100_990_000_001
CHANNEL_ID = -100_990_100_001
FLOOD_CHAT_ID = -100_990_200_001
JSON = dict[str, Any]
MALFORMED = [b"null", b"[]", b"7", b"{", b'{"update_id": "1", "message": "x"}', b"[" * 3000]


@pytest.fixture
def pg() -> Iterator[PgServer]:
    server = PgServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def emulator() -> Iterator[EmulatorProcess]:
    with EmulatorProcess() as process:
        yield process


class Stream:
    """Update ids and the noise around the scripts."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.next_id = 700_000_001
        self.message_ids: Counter[int] = Counter()

    def take_id(self) -> int:
        self.next_id += 1
        return self.next_id

    def message(self, chat: JSON, sender: JSON, text: str) -> JSON:
        self.message_ids[chat["id"]] += 1
        return {
            "message_id": 100_000 + self.message_ids[chat["id"]],
            "from": sender,
            "chat": chat,
            "date": int(time.time()),
            "text": text,
        }

    def noise(self, script: ChatScript, last_text: str) -> JSON:
        chat, sender = chat_of(script), user_of(script, self.rng.randrange(len(script.names)))
        kind = self.rng.choice(("edit", "forward", "join", "poll", "press", "chatter"))
        if kind == "edit":  # an edited command is not recorded again
            message = self.message(chat, sender, last_text) | {"edit_date": int(time.time())}
            return {"update_id": self.take_id(), "edited_message": message}
        if kind == "forward":
            message = self.message(chat, sender, "look at this one")
            origin = {"type": "user", "date": int(time.time()) - 60, "sender_user": sender}
            message["forward_origin"] = origin
            return {"update_id": self.take_id(), "message": message}
        if kind == "join":
            newcomer = {
                "id": 9_000_000 + self.rng.randrange(1000),
                "is_bot": False,
                "first_name": "Guest",
            }
            message = self.message(chat, newcomer, "") | {"new_chat_members": [newcomer]}
            del message["text"]
            return {"update_id": self.take_id(), "message": message}
        if kind == "poll":
            return {"update_id": self.take_id(), "poll": OLD_POLL}
        if kind == "press":  # a button that is no longer there
            bot_message = self.message(chat, {"id": 1, "is_bot": True, "first_name": "jifen"}, "x")
            query = {
                "id": str(self.take_id()),
                "from": sender,
                "chat_instance": "1",
                "message": bot_message,
                "data": "v1:undo:1",
            }
            return {"update_id": self.take_id(), "callback_query": query}
        return {"update_id": self.take_id(), "message": self.message(chat, sender, "好的 ok")}

    def channel_post(self) -> JSON:
        chat = {"id": CHANNEL_ID, "type": "channel", "title": "news"}
        post = self.message(chat, {"id": 1, "is_bot": False, "first_name": "x"}, "/standings")
        del post["from"]
        post["sender_chat"] = chat
        return {"update_id": self.take_id(), "channel_post": post}

    def flood(self, n: int) -> JSON:
        chat = {"id": FLOOD_CHAT_ID, "type": "supergroup", "title": "flood"}
        sender = {"id": 9_100_001, "is_bot": False, "first_name": "Spam"}
        return {
            "update_id": self.take_id(),
            "message": self.message(chat, sender, f"/standings {n}"),
        }


class Telegram:
    """Delivers like Telegram: POST to a random worker until a 2xx answer; timed."""

    def __init__(self, urls: list[str], rng: random.Random) -> None:
        self.urls, self.rng = urls, rng
        self.http = httpx.AsyncClient(
            timeout=60.0, headers={"Content-Type": "application/json", SECRET_HEADER: SECRET}
        )
        self.sent = 0
        self.deliveries = 0
        self.longest = 0.0
        self.statuses: Counter[int] = Counter()

    async def deliver(self, body: bytes, *, count: bool = True) -> None:
        self.sent += count
        while True:
            started = time.monotonic()
            try:
                status = (
                    await self.http.post(self.rng.choice(self.urls), content=body)
                ).status_code
            except httpx.HTTPError:
                status = 0
            self.longest = max(self.longest, time.monotonic() - started)
            self.deliveries += 1
            self.statuses[status] += 1
            if 200 <= status < 300:
                return
            await asyncio.sleep(0.5)

    async def malformed(self, body: bytes) -> int:
        return (await self.http.post(self.rng.choice(self.urls), content=body)).status_code


def peak_kb(bot: BotProcess) -> int:
    assert bot.process is not None
    for line in Path(f"/proc/{bot.process.pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return 0


def test_soak(pg: PgServer, emulator: EmulatorProcess, tmp_path: Path) -> None:
    scripts = build_scripts(SEED, chats=CHATS, updates=UPDATES, first_chat_id=FIRST_CHAT_ID)
    interleave(scripts, SEED, first_update_id=600_000_001)
    with EmulatorClient(emulator.base_url) as control:
        for script in scripts:
            for sender in range(len(script.names)):
                control.set_member(chat_of(script), user_of(script, sender), "member")
    workers = []
    for i in range(WORKERS):
        port = free_port()
        env = bot_env(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=emulator.api_base_url,
            DATABASE_URL=pg.url,
            JIFEN_DATA_DIR=str(tmp_path / f"w{i}"),
            WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram",
            WEBHOOK_SECRET=SECRET,
            WEBHOOK_LISTEN="127.0.0.1",
            WEBHOOK_PORT=str(port),
        )
        (tmp_path / f"w{i}").mkdir()
        bot = BotProcess(env, tmp_path / f"w{i}.log", cwd=tmp_path / f"w{i}")
        workers.append(Worker(i, port, bot.start()))
        if i == 0:
            wait_ready(workers, 90.0)  # the first migrates; then the others
    try:
        wait_ready(workers, 90.0)
        rng = random.Random(SEED)
        stream = Stream(rng)
        telegram = Telegram([w.url for w in workers], rng)
        again: Counter[int] = Counter()  # scripted commands delivered again, by chat
        refused = asyncio.run(play(scripts, stream, telegram, pg, again))
        peaks = [peak_kb(w.bot) for w in workers]
        dead = [w.index for w in workers if not w.bot.alive]
        with EmulatorClient(emulator.base_url) as control:
            sent = wait_replies(control, scripts)
    finally:
        for worker in workers:
            worker.bot.close()
    engine = make_engine(pg.url)
    try:
        problems = ledger_problems(engine, scripts)
    finally:
        engine.dispose()
    told = [  # a restart's notice, in the member's language
        e for e in sent if any(n in e.get("plain_text", "") for n in (NOTICE[:40], ZH_NOTICE))
    ]
    replies = Counter(entry["chat_id"] for entry in sent if entry not in told)
    lost = sum(max(0, len(s.steps) - replies[s.chat_id]) for s in scripts)
    doubled = sum(max(0, replies[s.chat_id] - len(s.steps)) for s in scripts)
    beyond = [s.chat_id for s in scripts if replies[s.chat_id] > len(s.steps) + again[s.chat_id]]
    print(
        f"\nsoak: {telegram.sent} updates sent ({telegram.deliveries} deliveries, statuses "
        f"{dict(telegram.statuses)}), {len(MALFORMED) * 3} malformed bodies refused {refused}; "
        f"replies lost {lost}, doubled {doubled} (delivered again {sum(again.values())}); "
        f"notices {len(told)}; ledger problems {len(problems)}; longest "
        f"webhook answer {telegram.longest:.2f} s; peak memory per worker "
        f"{[f'{kb / 1024:.0f} MB' for kb in peaks]}"
    )
    assert not dead, f"workers died: {dead}"
    assert not problems, "\n".join(problems[:20])
    assert lost == 0 and not beyond, (beyond, repeated_texts(sent, scripts))
    assert doubled <= sum(again.values())
    assert set(refused) == {400}
    for worker in workers:
        assert "Traceback" not in worker.bot.log(), worker.tail(60)


async def play(
    scripts: list[ChatScript],
    stream: Stream,
    telegram: Telegram,
    pg: PgServer,
    again: Counter[int],
) -> list[int]:
    total = sum(len(s.steps) for s in scripts)
    progress = [0]

    async def chat(script: ChatScript) -> None:
        rng = random.Random(script.index)
        for position, step in enumerate(script.steps):
            body = update_body(script, position, step)
            await telegram.deliver(body)
            progress[0] += 1
            if rng.random() < REDELIVER:
                again[script.chat_id] += 1
                await telegram.deliver(body, count=False)  # Telegram saw no answer in time
            while rng.random() < NOISE:
                noise = json.dumps(stream.noise(script, step.text)).encode()
                await telegram.deliver(noise)
                if rng.random() < REDELIVER:
                    await telegram.deliver(noise, count=False)
            await asyncio.sleep(0.3)  # people type: the flood guard stays quiet for them

    async def side_chats() -> None:
        n = 0
        while progress[0] < total:
            await telegram.deliver(json.dumps(stream.channel_post()).encode())
            burst = [json.dumps(stream.flood(n + i)).encode() for i in range(15)]
            await asyncio.gather(*(telegram.deliver(b) for b in burst))
            n += 15
            await asyncio.sleep(3)

    async def restarts() -> None:
        for share in (1 / 3, 2 / 3):
            while progress[0] < total * share:
                await asyncio.sleep(0.2)
            await asyncio.to_thread(pg.restart, 2.0)

    refused: list[int] = []

    async def malformed() -> None:
        for _ in range(3):
            for body in MALFORMED:
                refused.append(await telegram.malformed(body))
            await asyncio.sleep(5)

    try:
        await asyncio.gather(*(chat(s) for s in scripts), side_chats(), restarts(), malformed())
    finally:
        await telegram.http.aclose()
    return refused


def repeated_texts(sent: list[JSON], scripts: list[ChatScript]) -> list[str]:
    """The scripted chats' messages sent more than once, for a failure to show."""
    chats = {s.chat_id for s in scripts}
    texts = Counter((e["chat_id"], e.get("plain_text", "")) for e in sent if e["chat_id"] in chats)
    return [f"{chat}: {text[:120]!r} ×{n}" for (chat, text), n in texts.items() if n > 1]


def wait_replies(control: EmulatorClient, scripts: list[ChatScript]) -> list[JSON]:
    """The messages the bot sent, once no more arrive in the scripted chats (the outbox
    drained)."""
    expected = sum(len(s.steps) for s in scripts)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        counts = Counter(entry["chat_id"] for entry in _sent(control))
        if sum(counts[s.chat_id] for s in scripts) >= expected:
            break
        time.sleep(0.5)
    time.sleep(2)  # anything doubled shows up now
    return _sent(control)


def _sent(control: EmulatorClient) -> list[JSON]:
    return [entry for entry in control.outbox() if entry["action"] == "sent"]
