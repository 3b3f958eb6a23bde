"""Issue 28, point 1, as the webhook answers now (once its replies are sent): a webhook bot on
PostgreSQL, rate limiter on, is killed (SIGKILL) while a group's replies wait behind Telegram's
20-a-minute group limit, and restarted at once. Telegram (the emulator) delivers again what was
not answered, a chat's updates one at a time: every transfer is recorded once and confirmed
within seconds of the restart (a confirmation sent just before the kill may come twice: its
update was not answered), and the chat's replies never overtake each other: the /standings
typed after the restart comes after the last confirmation."""

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
    with fresh_pg_database("jifen_restart", ": webhook restart test skipped") as url:
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


def test_a_restart_answers_what_a_killed_webhook_bot_had_not_at_once_and_in_order(
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

    def recorded() -> int:
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT count(*) FROM event WHERE chat_id = :c AND kind = 'pay'"), {"c": CHAT}
            )
            return int(found.scalar_one())

    try:
        for name in NAMES:
            client.set_member(chat_dict(CHAT), name, "member")
        bot.start().wait_ready(ready)
        client.send(chat_dict(CHAT), "Ann", "/new mahjong")
        client.send(chat_dict(CHAT), "Ann", "/seats " + " ".join(NAMES))
        for n in range(PAYS):  # from three members: each stays under the flood limit
            # 1 and 2 by turns: the same transfer again within two minutes would ask first
            client.send(chat_dict(CHAT), NAMES[n % 3], f"/pay Ann Dan {amount(n)}")
        # The first 20 messages go at once, then one every 3 s: kill while one waits.
        assert wait_until(lambda: len(arrivals.transfers()) >= 20, 60), (
            f"the replies did not come as expected: {arrivals.texts()}\n{bot.log()}"
        )
        bot.kill()
        missing = PAYS - len({n for _, n in arrivals.transfers()})
        assert missing >= 3, missing
        bot.start().wait_ready(ready)
        restarted = utcnow()
        client.send(chat_dict(CHAT), "Bob", "/standings")
        assert wait_until(
            lambda: any(shown.startswith("Standings") for _, shown in arrivals.texts()), 60
        ), f"no /standings answer: {arrivals.texts()}\n{bot.log()}"
        bot.stop()
        recorded_after = recorded()
    finally:
        bot.kill()
        engine.dispose()
        client.close()
        emulator.stop()
    transfers = arrivals.transfers()
    numbers = [n for _, n in transfers]
    assert set(numbers) == set(range(1, PAYS + 1)), numbers
    assert numbers == sorted(numbers), f"a chat's replies overtook each other: {numbers}"
    assert len(numbers) <= PAYS + 1, numbers  # the one in flight at the kill, maybe twice
    assert recorded_after == PAYS  # each recorded once
    shown = [s for _, s in arrivals.texts()]
    assert shown[-1].startswith("Standings"), f"/standings came before a confirmation: {shown}"
    total = sum(amount(n) for n in range(PAYS))
    assert f"Ann -{total}" in shown[-1] and f"Dan +{total}" in shown[-1], shown[-1]
    last = max(at for at, _ in transfers)
    waited = (last - restarted).total_seconds()
    assert waited < SOON, f"the last confirmation came {waited:.1f} s after the restart"
