"""Issue 28, points 3 and 9: the SQLite file under a real polling bot process.

Deleted while the bot runs: the bot confirms nothing more and stops; a restart refuses to start
on the missing file (the directory held one); after `jifen restore` Telegram's redelivered
updates are recorded. `jifen restore` refuses while the bot runs; a file replaced under the bot
stops it before anything is confirmed. A first start says it creates a new database, and
creates it 0600 (its -wal and -shm too) whatever the umask.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.botprocess import REPO, BotProcess, bot_env, free_port
from tests.e2e.conftest import port_open
from tests.emulator.server import EmulatorClient, EmulatorProcess
from tests.reliability.crashkit import NAMES, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(300)]

TOKEN = "4244:DBFILE-test-token"
CHAT = {"id": -100_988, "type": "supergroup", "title": "table"}
TRANSFER = re.compile(r"Transfer #(\d+)")


@dataclass
class Stack:
    client: EmulatorClient
    bot: BotProcess
    workdir: Path
    paid: int = 0  # transfers sent

    @property
    def database(self) -> Path:
        return self.workdir / "data" / "jifen.sqlite3"

    def jifen(self, *args: str) -> subprocess.CompletedProcess[str]:
        """`jifen ARGS` with the bot's settings, as an operator runs it."""
        return subprocess.run(
            [sys.executable, "-m", "bot.cli", *args],
            cwd=self.workdir,
            env=self.bot.env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    def transfers(self) -> list[int]:
        """The transfer numbers the bot confirmed in the group, in order."""
        found = (TRANSFER.search(e["plain_text"]) for e in self.client.outbox(CHAT["id"]))
        return [int(m[1]) for m in found if m]

    def pay(self, n: int) -> None:
        for i in range(n):
            # 2 and 1 by turns (2 first): the same transfer right after it would be asked about
            self.paid += 1
            self.client.send(CHAT, NAMES[i % 3], f"/pay Ann Dan {1 + self.paid % 2}")

    def wait_transfers(self, count: int) -> None:
        assert wait_until(lambda: len(self.transfers()) >= count, 60), (
            self.transfers(),
            self.bot.log(),
        )


@pytest.fixture(params=["polling", "webhook"])
def stack(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Stack]:
    with EmulatorProcess(token=TOKEN) as emulator, emulator.client() as client:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=emulator.api_base_url,
            JIFEN_DATA_DIR=str(tmp_path / "data"),  # the default file: data/jifen.sqlite3
            PYTHONPATH=str(REPO),
        )
        if request.param == "webhook":
            port = free_port()
            env |= {
                "WEBHOOK_URL": f"http://127.0.0.1:{port}/hook",
                "WEBHOOK_LISTEN": "127.0.0.1",
                "WEBHOOK_PORT": str(port),
                "WEBHOOK_SECRET": "dbfile-secret",
            }
        bot = BotProcess(env, tmp_path / "bot.log", cwd=tmp_path)
        for name in NAMES:
            client.set_member(CHAT, name, "member")
        try:
            yield Stack(client, bot, tmp_path)
        finally:
            bot.close()
            print(bot.log())


def start(stack: Stack, *, umask: int | None = None) -> None:
    old = os.umask(umask) if umask is not None else None
    try:
        stack.bot.start()
    finally:
        if old is not None:
            os.umask(old)
    url, port = stack.bot.env["WEBHOOK_URL"], stack.bot.env["WEBHOOK_PORT"]
    stack.bot.wait_ready(
        lambda: not url or (stack.client.health()["webhook"] == url and port_open(int(port)))
    )


def set_up(stack: Stack) -> None:
    stack.client.send(CHAT, "Ann", "/new mahjong")
    stack.client.send(CHAT, "Ann", "/seats " + " ".join(NAMES))


def test_a_deleted_database_stops_the_bot_and_a_restart_refuses_until_restored(
    stack: Stack,
) -> None:
    start(stack, umask=0)  # the loosest umask: the file is private anyway
    assert "no database at" in stack.bot.log() and "creating a new, empty one" in stack.bot.log()
    set_up(stack)
    stack.pay(5)
    stack.wait_transfers(5)
    for suffix in ("", "-wal", "-shm"):
        mode = (Path(f"{stack.database}{suffix}").stat().st_mode) & 0o777
        assert mode == 0o600, f"jifen.sqlite3{suffix} is {mode:o}"
    backup = stack.workdir / "evening.sqlite3"
    done = stack.jifen("backup", str(backup))
    assert done.returncode == 0, done.stderr
    for suffix in ("", "-wal", "-shm"):
        Path(f"{stack.database}{suffix}").unlink()
    stack.pay(20)
    assert stack.bot.wait(60) == 1  # stops by itself
    log = stack.bot.log()
    assert "stopping: " in log and "deleted or replaced while the bot ran" in log
    assert stack.transfers() == [1, 2, 3, 4, 5]  # nothing confirmed into the deleted file
    assert stack.client.health()["pending_updates"] >= 20  # Telegram keeps them
    start_again = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        cwd=stack.workdir,
        env=stack.bot.env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert start_again.returncode == 2
    assert "not starting: the database" in start_again.stderr
    assert "is missing, but there was one" in start_again.stderr
    assert not stack.database.exists()  # and no empty one in its place
    done = stack.jifen("restore", str(backup))
    assert done.returncode == 0, done.stderr
    start(stack)
    stack.wait_transfers(25)  # the 20 redelivered, recorded in the restored book
    assert stack.transfers() == list(range(1, 26))
    stack.client.send(CHAT, "Bob", "/standings")
    assert wait_until(
        # 25 transfers, 2 and 1 by turns: 13 × 2 + 12 × 1
        lambda: any("Dan +38" in e["plain_text"] for e in stack.client.outbox(CHAT["id"])[-1:]),
        60,
    ), stack.client.outbox(CHAT["id"])[-1:]
    assert stack.bot.stop() == 0


def test_restore_refuses_while_the_bot_runs_and_a_replaced_file_stops_it(stack: Stack) -> None:
    start(stack)
    set_up(stack)
    stack.pay(5)
    stack.wait_transfers(5)
    backup = stack.workdir / "evening.sqlite3"
    assert stack.jifen("backup", str(backup)).returncode == 0
    stack.pay(5)
    stack.wait_transfers(10)
    done = stack.jifen("restore", str(backup))
    assert done.returncode == 2
    assert "the database is in use" in done.stderr and "nothing was changed" in done.stderr
    stack.pay(1)  # the bot goes on with its own file
    stack.wait_transfers(11)
    assert stack.bot.alive
    copy = stack.workdir / "data" / "copy.sqlite3"
    copy.write_bytes(backup.read_bytes())
    os.replace(copy, stack.database)  # put in place under the running bot
    stack.pay(3)
    assert stack.bot.wait(60) == 1
    assert stack.transfers() == list(range(1, 12))  # not one more: neither #6 nor #12
    assert "deleted or replaced while the bot ran" in stack.bot.log()
