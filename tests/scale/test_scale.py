"""Several webhook workers on one PostgreSQL database, under load, with redelivered updates.

The test starts the Bot API emulator and ``WORKERS`` bot processes in webhook mode (``python -m
bot.cli run``) on a fresh PostgreSQL database; the workers migrate it together at start-up.
It then plays ``UPDATES`` updates of ``CHATS`` supergroups (mahjong with kongs, special wins,
several winners and sealed players; 510K for four and for three; ``/undo``; a few refused
commands) by POSTing them straight to the workers' webhook URLs with the secret header: each
update goes to a random worker, about ``DUPLICATES`` of them are posted a second time (at once,
or a few updates later; to a random worker), and up to ``IN_FLIGHT`` requests are open at once.

Ordering: Telegram sends a chat's updates in order, but several workers may process them in
any order, and undo or a kong's place in a hand depend on it. So a chat sends its next update
only when every update it posted so far has been answered and replied to (a worker answers
once the change is committed and its replies sent; a redelivered update answers with what was
recorded, so a delivery gets one set of replies: they are counted in the emulator's outbox),
while the chats run
concurrently. The expected ledger of every chat is computed beforehand by
``tests.scale.scenario`` with the pure scoring package; the database must match it exactly:
every event with its number, text and undo, gapless hand numbers, each update claimed once and
linked to the event it recorded, each player's balance.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import Engine

from storage.db import make_engine
from tests.botprocess import READY, BotProcess, bot_env, free_port
from tests.conftest import fresh_pg_database
from tests.emulator.server import EmulatorClient, EmulatorProcess
from tests.scale.scenario import (
    ChatScript,
    Step,
    build_scripts,
    interleave,
    ledger_problems,
    summary,
)

pytestmark = [pytest.mark.slow, pytest.mark.scale, pytest.mark.timeout(420)]

WORKERS = int(os.environ.get("JIFEN_SCALE_WORKERS", "3"))  # bench/RESULTS.md: 1, 2 and 3
CHATS = 20
UPDATES = 2000
DUPLICATES = 0.10  # share of updates delivered twice
IN_FLIGHT = 16  # webhook requests open at once
SEED = int(os.environ.get("JIFEN_SCALE_SEED", "20240601"))
TOKEN = "123456:SCALE-test-token_0123456789abcdef"
SECRET = "scale-Webhook-Secret_42"
SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
FIRST_CHAT_ID = -100_880_000_001
START_TIMEOUT = 90.0  # three cold starts at once on two cores
REPLY_TIMEOUT = 60.0
FAILURE = "Sorry, something went wrong"
JSON = dict[str, Any]


# ---------------------------------------------------------------- processes


@dataclass
class Worker:
    index: int
    port: int
    bot: BotProcess

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/telegram"

    def tail(self, lines: int = 40) -> str:
        return "\n".join(self.bot.log().splitlines()[-lines:])


def start_worker(
    index: int, database_url: str, api_base_url: str, folder: Path, **more: str
) -> Worker:
    """A bot in webhook mode on a free port; output in a log file (`more`: other settings)."""
    port = free_port()
    data = folder / f"worker{index}"
    data.mkdir(parents=True, exist_ok=True)
    env = bot_env(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=api_base_url,
        DATABASE_URL=database_url,
        JIFEN_DATA_DIR=str(data),
        JIFEN_FLOOD="off",  # a machine plays far faster than people type (tests/reliability)
        WEBHOOK_URL=f"http://127.0.0.1:{port}/telegram",
        WEBHOOK_SECRET=SECRET,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        **more,
    )
    return Worker(index, port, BotProcess(env, folder / f"worker{index}.log", cwd=data).start())


def wait_ready(workers: Sequence[Worker], timeout: float) -> None:
    """Every worker's webhook server answers HTTP and its application has started."""
    deadline = time.monotonic() + timeout
    pending = list(workers)
    with httpx.Client(timeout=2.0) as http:
        while pending:
            for worker in list(pending):
                if not worker.bot.alive:
                    raise AssertionError(
                        f"worker {worker.index} exited with {worker.bot.returncode}:\n"
                        + worker.tail()
                    )
                try:
                    http.get(worker.url)  # 405: the server is up
                except httpx.HTTPError:
                    continue
                if READY in worker.bot.log():
                    pending.remove(worker)
            if pending and time.monotonic() > deadline:
                tails = "\n".join(f"--- worker {w.index}\n{w.tail()}" for w in pending)
                raise AssertionError(f"workers not ready within {timeout} s:\n{tails}")
            time.sleep(0.1)


# ---------------------------------------------------------------- fixtures


@pytest.fixture
def scale_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database (the workers migrate it), dropped afterwards."""
    with fresh_pg_database("jifen_scale", ": the scale test needs PostgreSQL") as url:
        yield url


@pytest.fixture
def emulator() -> Iterator[EmulatorProcess]:
    with EmulatorProcess() as process:
        yield process


@pytest.fixture
def scale_engine(scale_database: str) -> Iterator[Engine]:
    eng = make_engine(scale_database)
    yield eng
    eng.dispose()


# ---------------------------------------------------------------- updates


def user_of(script: ChatScript, sender: int) -> JSON:
    uid = 7_100_000 + script.index * 10 + sender
    lang = "zh" if any("\u4e00" <= ch <= "\u9fff" for ch in script.names[0]) else "en"
    return {"id": uid, "is_bot": False, "first_name": f"Player{sender + 1}", "language_code": lang}


def chat_of(script: ChatScript) -> JSON:
    return {"id": script.chat_id, "type": "supergroup", "title": script.title}


def update_body(script: ChatScript, position: int, step: Step) -> bytes:
    """The update Telegram would send for this message (a command: a bot_command entity)."""
    command = step.text.split()[0]
    message = {
        "message_id": position + 1,
        "from": user_of(script, step.sender),
        "chat": chat_of(script),
        "date": int(time.time()),
        "text": step.text,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}],
    }
    return json.dumps({"update_id": step.update_id, "message": message}).encode()


# ---------------------------------------------------------------- the load


class Outbox:
    """Counts the bot's messages per chat by long polling the emulator's outbox."""

    def __init__(self, base_url: str) -> None:
        self.http = httpx.AsyncClient(base_url=base_url, timeout=60.0)
        self.counts: Counter[int] = Counter()
        self.texts: dict[int, list[str]] = defaultdict(list)
        self.changed = asyncio.Condition()
        self.since = 0
        self.stopped = False
        self.error: Exception | None = None

    async def run(self) -> None:
        try:
            while not self.stopped:
                response = await self.http.get(
                    "/_test/outbox", params={"since": self.since, "wait": 2}
                )
                response.raise_for_status()
                entries = response.json()
                for entry in entries:
                    self.since = max(self.since, entry["seq"])
                    if entry["action"] == "sent":
                        self.counts[entry["chat_id"]] += 1
                        self.texts[entry["chat_id"]].append(entry["plain_text"])
                if entries:
                    async with self.changed:
                        self.changed.notify_all()
        except Exception as error:
            self.error = error
            async with self.changed:
                self.changed.notify_all()
            raise

    async def wait(self, chat_id: int, count: int) -> None:
        async with self.changed:
            try:
                await asyncio.wait_for(
                    self.changed.wait_for(
                        lambda: self.counts[chat_id] >= count or self.error is not None
                    ),
                    REPLY_TIMEOUT,
                )
            except TimeoutError:
                raise AssertionError(
                    f"chat {chat_id}: {self.counts[chat_id]} replies after {count} deliveries "
                    f"within {REPLY_TIMEOUT} s"
                ) from None
        if self.error is not None:
            raise AssertionError(f"reading the emulator's outbox failed: {self.error!r}")


@dataclass
class Load:
    deliveries: Counter[int]  # per chat
    per_worker: Counter[int]
    duplicates: int
    seconds: float


async def play(
    scripts: Sequence[ChatScript], workers: Sequence[Worker], emulator_url: str
) -> tuple[Load, Outbox]:
    """Every chat concurrently, each in order; random workers; duplicates; bounded in flight."""
    outbox = Outbox(emulator_url)
    watcher = asyncio.create_task(outbox.run())
    gate = asyncio.Semaphore(IN_FLIGHT)
    load = Load(Counter(), Counter(), 0, 0.0)
    limits = httpx.Limits(max_connections=IN_FLIGHT * 2, max_keepalive_connections=IN_FLIGHT)
    headers = {"Content-Type": "application/json", SECRET_HEADER: SECRET}

    async with httpx.AsyncClient(timeout=30.0, limits=limits, headers=headers) as http:

        async def post(body: bytes, worker: Worker) -> None:
            async with gate:
                response = await http.post(worker.url, content=body)
            assert response.status_code == 200, (worker.index, response.status_code, body[:200])
            load.per_worker[worker.index] += 1

        async def chat(script: ChatScript) -> None:
            rng = random.Random(SEED * 1000 + script.index)
            later: list[tuple[int, bytes]] = []  # (send with step #, body): late redeliveries
            sent = 0
            for position, step in enumerate(script.steps):
                body = update_body(script, position, step)
                batch = [body]
                if rng.random() < DUPLICATES:
                    load.duplicates += 1
                    if rng.random() < 0.5:
                        batch.append(body)  # redelivered at once, maybe to another worker
                    else:
                        later.append((position + rng.randint(1, 8), body))
                batch += [b for due, b in later if due <= position]
                later = [(due, b) for due, b in later if due > position]
                rng.shuffle(batch)
                await asyncio.gather(*(post(b, rng.choice(workers)) for b in batch))
                sent += len(batch)
                await outbox.wait(script.chat_id, position + 1)  # one reply per update
            if later:
                await asyncio.gather(*(post(b, rng.choice(workers)) for _, b in later))
                sent += len(later)
            load.deliveries[script.chat_id] = sent

        started = time.monotonic()
        try:
            await asyncio.gather(*(chat(s) for s in scripts))
            load.seconds = time.monotonic() - started
            await asyncio.sleep(1.0)  # any extra reply (an update handled twice) shows up now
        finally:
            outbox.stopped = True  # the watcher's long poll ends within 2 s
            await asyncio.wait([watcher], timeout=10)
            watcher.cancel()
            await asyncio.gather(watcher, return_exceptions=True)
            await outbox.http.aclose()
    return load, outbox


# ---------------------------------------------------------------- the test


def test_webhook_workers_on_postgres(
    scale_database: str, scale_engine: Engine, emulator: EmulatorProcess, tmp_path: Path
) -> None:
    scripts = build_scripts(SEED, chats=CHATS, updates=UPDATES, first_chat_id=FIRST_CHAT_ID)
    interleave(scripts, SEED, first_update_id=500_000_001)
    with EmulatorClient(emulator.base_url) as control:
        for script in scripts:
            for sender in range(len(script.names)):
                control.set_member(chat_of(script), user_of(script, sender), "member")

    started = time.monotonic()
    workers = [
        start_worker(i, scale_database, emulator.api_base_url, tmp_path) for i in range(WORKERS)
    ]
    try:
        wait_ready(workers, START_TIMEOUT)
        startup = time.monotonic() - started

        # The secret is checked: a request without it (or with another) is refused.
        probe = update_body(scripts[0], 0, scripts[0].steps[0])
        for headers in ({}, {SECRET_HEADER: "wrong"}):
            response = httpx.post(
                workers[0].url,
                content=probe,
                headers={"Content-Type": "application/json", **headers},
            )
            assert response.status_code == 403, response.status_code

        load, outbox = asyncio.run(play(scripts, workers, emulator.base_url))
        dead = [w.index for w in workers if not w.bot.alive]
    finally:
        for worker in workers:
            worker.bot.close()

    stats = summary(scripts)
    total = sum(load.deliveries.values())
    print(
        f"\nscale: {stats}; {total} deliveries ({load.duplicates} duplicates) in "
        f"{load.seconds:.1f} s = {total / load.seconds:.0f}/s, "
        f"{stats['hands'] / load.seconds:.0f} hands/s with {WORKERS} worker(s); per worker "
        f"{dict(sorted(load.per_worker.items()))}; start-up {startup:.1f} s"
    )
    logs = {w.index: w.bot.log() for w in workers}
    assert not dead, f"workers died: {dead}"
    for index, log in logs.items():
        for bad in ("update failed", "Traceback", "ERROR"):
            assert bad not in log, f"worker {index} logged {bad!r}:\n{workers[index].tail(60)}"
    # One worker upgrades the new database; the others find it current (no Alembic at all).
    assert sum("Running upgrade" in log for log in logs.values()) == 1, "migrated more than once"

    # A reply for every update, and one for each delivery at most; no apologies.
    for script in scripts:
        got, sent = outbox.counts[script.chat_id], len(script.steps)
        delivered = load.deliveries[script.chat_id]
        assert sent <= got <= delivered, (
            f"chat {script.chat_id}: {got} replies to {sent} updates delivered {delivered} times"
        )
        failures = [t for t in outbox.texts[script.chat_id] if FAILURE in t]
        assert not failures, f"chat {script.chat_id}: {failures[:3]}"

    problems = ledger_problems(scale_engine, scripts)
    assert not problems, "\n".join(problems)
