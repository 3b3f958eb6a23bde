"""Issue 28, point 1: a webhook bot on PostgreSQL, rate limiter on, is killed (SIGKILL) while a
group's replies wait in the outbox behind Telegram's 20-a-minute group limit, and restarted at
once. Every confirmation comes within seconds of the restart, long before the dead process's
leases end (a new start takes over what a dead one held at once: its advisory lock went with
its session), and the chat's replies never overtake each other: the /standings typed after the
restart comes after the last confirmation."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.db import make_engine
from storage.models import utcnow
from tests.botprocess import BotProcess, bot_env, free_port
from tests.conftest import fresh_pg_database
from tests.e2e.conftest import port_open
from tests.emulator.server import EmulatorClient
from tests.reliability.crashkit import NAMES, wait_until
from tests.reliability.test_crash import ThreadedEmulator, chat_dict

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.postgres, pytest.mark.timeout(240)]

TOKEN = "4243:TAKEOVER-test-token"
CHAT = -100_977
PAYS = 25
TRANSFER = re.compile(r"Transfer #(\d+)")
SOON = 5.0  # seconds after the restart was ready by which every confirmation must be there


def amount(n: int) -> int:
    """The n-th transfer's amount."""
    return 1 + n % 2


@pytest.fixture
def pg_database() -> Iterator[str]:
    with fresh_pg_database("jifen_takeover", ": outbox take-over test skipped") as url:
        yield url


class Arrivals:
    """When each of the bot's messages reached the emulator (its listener, in its thread)."""

    def __init__(self, emulator: ThreadedEmulator) -> None:
        self.api = emulator.server.api
        self.lock = threading.Lock()
        self.at: list[tuple[datetime, str]] = []  # (arrival, plain text), in arrival order
        self.api.add_listener(self._note)

    def _note(self, kind: str) -> None:
        if kind != "outbox":
            return
        with self.lock:
            for entry in self.api.outbox[len(self.at) :]:
                shown = entry.plain_text if entry.chat_id == CHAT and entry.action == "sent" else ""
                self.at.append((utcnow(), shown))

    def texts(self) -> list[tuple[datetime, str]]:
        with self.lock:
            return [(at, shown) for at, shown in self.at if shown]

    def transfers(self) -> list[tuple[datetime, int]]:
        return [
            (at, int(found[1]))
            for at, shown in self.texts()
            if (found := TRANSFER.search(shown)) is not None
        ]


def test_a_restart_sends_what_a_killed_webhook_bot_held_at_once_and_in_order(
    pg_database: str, tmp_path: Path
) -> None:
    emulator = ThreadedEmulator()
    arrivals = Arrivals(emulator)
    client = EmulatorClient(emulator.server.base_url)
    port = free_port()
    url = f"http://127.0.0.1:{port}/hook"
    env = bot_env(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=emulator.api_base_url,
        DATABASE_URL=pg_database,
        WEBHOOK_URL=url,
        WEBHOOK_LISTEN="127.0.0.1",
        WEBHOOK_PORT=str(port),
        WEBHOOK_SECRET="takeover-secret",
        JIFEN_RATE_LIMIT="on",  # Telegram's limits: 20 messages a minute in a group
    )
    bot = BotProcess(env, tmp_path / "bot.log")
    engine = make_engine(pg_database)

    def ready() -> bool:
        return client.health()["webhook"] == url and port_open(port)

    def held() -> list[tuple[int, datetime]]:
        """The unsent calls a sender holds now, with the end of their lease."""
        with engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT id, CAST(claimed_until AS timestamptz) FROM outbox"
                    " WHERE sent_at IS NULL AND claimed_by IS NOT NULL AND claimed_until > :now"
                ),
                {"now": utcnow()},
            )
            return [(int(r[0]), r[1]) for r in rows]

    try:
        for name in NAMES:
            client.set_member(chat_dict(CHAT), name, "member")
        bot.start().wait_ready(ready)
        client.send(chat_dict(CHAT), "Ann", "/new mahjong")
        client.send(chat_dict(CHAT), "Ann", "/seats " + " ".join(NAMES))
        for n in range(PAYS):  # from three members: each stays under the flood limit
            # 1 and 2 by turns: the same transfer again within two minutes would ask first
            client.send(chat_dict(CHAT), NAMES[n % 3], f"/pay Ann Dan {amount(n)}")
        # The first 20 messages go at once, then one every 3 s: kill while the rest wait.
        assert wait_until(lambda: len(arrivals.transfers()) >= 19 and bool(held()), 60), (
            f"the replies did not queue up as expected: {arrivals.texts()}\n{bot.log()}"
        )
        bot.kill()
        leases = held()  # what the dead process held, and until when
        missing = PAYS - len({n for _, n in arrivals.transfers()})
        assert leases and missing >= 3, (leases, missing)
        bot.start().wait_ready(ready)
        restarted = utcnow()
        client.send(chat_dict(CHAT), "Bob", "/standings")
        assert wait_until(
            lambda: any(shown.startswith("Standings") for _, shown in arrivals.texts()), 60
        ), f"no /standings answer: {arrivals.texts()}\n{bot.log()}"
        bot.stop()
    finally:
        bot.kill()
        engine.dispose()
        client.close()
        emulator.stop()
    transfers = arrivals.transfers()
    numbers = [n for _, n in transfers]
    assert set(numbers) == set(range(1, PAYS + 1)), numbers
    assert numbers == sorted(numbers), f"a chat's replies overtook each other: {numbers}"
    shown = [s for _, s in arrivals.texts()]
    assert shown[-1].startswith("Standings"), f"/standings came before a confirmation: {shown}"
    total = sum(amount(n) for n in range(PAYS))
    assert f"Ann -{total}" in shown[-1] and f"Dan +{total}" in shown[-1], shown[-1]
    last = max(at for at, _ in transfers)
    lease_end = min(until for _, until in leases)
    waited = (last - restarted).total_seconds()
    assert last < lease_end, f"the confirmations waited for the dead process's lease ({waited} s)"
    assert waited < SOON, f"the last confirmation came {waited:.1f} s after the restart"
