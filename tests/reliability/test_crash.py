"""Crash consistency: the bot process is killed (SIGKILL) at random moments while a stream of
commands for several chats is processed, 20 times over, and restarted each time; Telegram (the
emulator) redelivers what was not confirmed. At the end every command must have been applied
exactly once: the ledger equals the one computed independently with the scoring package.

Polling on SQLite (the emulator as a process), then the webhook path on PostgreSQL (the emulator
pushes every update until the bot's webhook answers 200). ``JIFEN_CRASH_KILLS`` changes the
number of kills (default 20).
"""

from __future__ import annotations

import asyncio
import os
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from storage.db import make_engine
from tests.botprocess import BotProcess, bot_env, free_port
from tests.conftest import fresh_pg_database
from tests.emulator.api import FakeBotApi
from tests.emulator.server import EmulatorClient, EmulatorProcess, EmulatorServer
from tests.reliability.crashkit import (
    NAMES,
    Command,
    applied,
    expected_balances,
    ledger,
    make_stream,
    wait_until,
)

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(240)]

KILLS = int(os.environ.get("JIFEN_CRASH_KILLS", "20"))
CHATS = {-100_901: "mahjong", -100_902: "mahjong", -100_903: "510k"}
HANDS_PER_CHAT = 40
TOKEN = "4242:CRASH-test-token"


def chat_dict(chat_id: int) -> dict[str, Any]:
    return {"id": chat_id, "type": "supergroup", "title": f"table {chat_id}"}


class Feeder:
    """Sends the stream's commands through the emulator and remembers their update ids."""

    def __init__(self, client: EmulatorClient, stream: list[Command]) -> None:
        self.client = client
        self.pending = list(stream)
        self.sent: list[tuple[Command, int]] = []
        for chat_id in CHATS:
            for name in NAMES:
                client.set_member(chat_dict(chat_id), name, "member")

    def send(self, n: int) -> None:
        for _ in range(n):
            if not self.pending:
                return
            command = self.pending.pop(0)
            update = self.client.send(chat_dict(command.chat_id), command.user, command.text)
            self.sent.append((command, int(update["update_id"])))

    @property
    def write_ids(self) -> list[int]:
        return [uid for command, uid in self.sent if command.writes]


def crash_loop(bot: BotProcess, feeder: Feeder, rng: random.Random, engine: Engine) -> None:
    """Set the tables up (without crashes: a lost /new would fail every later hand of its chat
    and blur the count), then kill the bot KILLS times: mostly while it works through a burst,
    sometimes while it is still starting; more commands arrive while it is down."""
    bot.start()
    bot.wait_ready()
    feeder.send(2 * len(CHATS))
    assert drain(engine, feeder), "the tables were not set up"
    for _ in range(KILLS):
        if rng.random() < 0.15:
            time.sleep(rng.uniform(0.2, 1.5))  # during start-up (migrations, getMe, …)
        else:
            bot.wait_ready()
            feeder.send(rng.randint(2, 7))
            time.sleep(rng.uniform(0.0, 0.25))
        bot.kill()
        feeder.send(rng.randint(0, 3))
        bot.start()
    bot.wait_ready()
    feeder.send(len(feeder.pending))


def drain(engine: Engine, feeder: Feeder, idle: float = 6.0) -> bool:
    """Wait until every write sent is applied, or nothing more is applied for `idle` seconds."""
    write_ids = feeder.write_ids
    progress = [len(applied(engine, write_ids)), time.monotonic()]

    def done() -> bool:
        count = len(applied(engine, write_ids))
        if count != progress[0]:
            progress[:] = [count, time.monotonic()]
        return count == len(write_ids) or time.monotonic() - progress[1] > idle

    wait_until(done, timeout=120)
    return len(applied(engine, write_ids)) == len(write_ids)


def check_ledger(engine: Engine, bot: BotProcess, feeder: Feeder, label: str) -> None:
    write_ids = feeder.write_ids
    drain(engine, feeder)
    bot.stop()
    done = applied(engine, write_ids)
    lost = [(c.chat_id, c.text, uid) for c, uid in feeder.sent if c.writes and uid not in done]
    stream = [c for c, _ in feeder.sent]
    expected = expected_balances(CHATS, stream)
    hands_expected = {chat_id: 0 for chat_id in CHATS}
    for command in stream:
        if command.text.startswith(("/hu", "/liuju", "/r ")):
            hands_expected[command.chat_id] += 1
    with engine.connect() as conn:
        hands = {
            chat_id: int(
                conn.execute(
                    text("SELECT count(*) FROM event WHERE chat_id = :c AND kind = 'hand'"),
                    {"c": chat_id},
                ).scalar_one()
            )
            for chat_id in CHATS
        }
    print(
        f"\n{label}: {bot.kills} kills, {bot.starts} starts, {len(feeder.sent)} updates "
        f"({len(write_ids)} writes), lost {len(lost)}; hands {hands} expected {hands_expected}"
    )
    assert not lost, f"{len(lost)} of {len(write_ids)} commands were lost: {lost[:5]}"
    assert hands == hands_expected, "a command was applied twice (or lost)"
    for chat_id in CHATS:
        unit = "510k" if CHATS[chat_id] == "510k" else "mahjong"
        assert ledger(engine, chat_id, unit) == expected[chat_id], f"chat {chat_id}: differs"


def test_polling_bot_killed_at_random_loses_nothing(tmp_path: Path) -> None:
    rng = random.Random(2026)
    stream = make_stream(CHATS, HANDS_PER_CHAT, seed=8)
    database = f"sqlite:///{tmp_path}/crash.sqlite3"
    with EmulatorProcess() as emulator, emulator.client() as client:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=emulator.api_base_url,
            DATABASE_URL=database,
            JIFEN_FLOOD="off",
        )
        bot = BotProcess(env, tmp_path / "bot.log")
        feeder = Feeder(client, stream)
        engine = make_engine(database)
        try:
            crash_loop(bot, feeder, rng, engine)
            check_ledger(engine, bot, feeder, "polling/SQLite")
        finally:
            bot.kill()
            engine.dispose()


# --------------------------------------------------------------------------- webhook


class ThreadedEmulator:
    """The emulator's server on its own event loop in a thread, with fast webhook retries (the
    subprocess backs off up to 5 s, which would make 20 restarts slow)."""

    def __init__(self, retry_delay: float = 0.02) -> None:
        self.loop = asyncio.new_event_loop()
        self.server = EmulatorServer(FakeBotApi(first_update_id=10_000), retry_delay=retry_delay)
        started = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(self.loop)
            self.loop.run_until_complete(self.server.start("127.0.0.1", 0))
            started.set()
            self.loop.run_forever()

        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()
        assert started.wait(10), "the emulator did not start"

    @property
    def api_base_url(self) -> str:
        return f"{self.server.base_url}/bot"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@pytest.fixture
def pg_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database (the bot migrates it on start)."""
    with fresh_pg_database("jifen_crash", ": webhook crash test skipped") as url:
        yield url


@pytest.mark.postgres
def test_webhook_bot_on_postgres_killed_at_random_loses_nothing(
    pg_database: str, tmp_path: Path
) -> None:
    rng = random.Random(2027)
    stream = make_stream(CHATS, HANDS_PER_CHAT, seed=9)
    emulator = ThreadedEmulator()
    port = free_port()
    client = EmulatorClient(emulator.server.base_url)
    env = bot_env(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=emulator.api_base_url,
        DATABASE_URL=pg_database,
        WEBHOOK_URL=f"http://127.0.0.1:{port}/hook",
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET="crash-secret",
        JIFEN_FLOOD="off",
    )
    bot = BotProcess(env, tmp_path / "bot.log")
    feeder = Feeder(client, stream)
    engine = make_engine(pg_database)
    try:
        crash_loop(bot, feeder, rng, engine)
        check_ledger(engine, bot, feeder, "webhook/PostgreSQL")
    finally:
        bot.kill()
        engine.dispose()
        client.close()
        emulator.stop()
