"""Issue 39, point 6: a damaged SQLite file under a real polling bot process.

Random bytes written in the middle of the file (the bot stopped) make SQLite's `quick_check`
report it malformed: the bot then refuses to start with one line saying so and how to restore
the last backup, and the health check says "database damaged"; after `jifen restore` the bot
starts, and Telegram's updates kept meanwhile are recorded.
"""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.dbfile import quick_check
from tests.botprocess import REPO, BotProcess, bot_env
from tests.emulator.server import EmulatorClient, EmulatorProcess
from tests.reliability.crashkit import wait_until
from tests.reliability.filekit import members, pay, seat, transfers

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(300)]

TOKEN = "4245:DAMAGED-test-token"
CHAT = {"id": -100_989, "type": "supergroup", "title": "table"}
HEALTHCHECK = REPO / "deploy" / "healthcheck.py"


def damage(path: Path) -> None:
    """Random bytes over a few pages in the middle of the file (its header page stays)."""
    size, page = path.stat().st_size, 4096
    start = (size // 2) // page * page
    noise = random.Random(39).randbytes(3 * page)
    with path.open("r+b") as handle:
        handle.seek(start)
        handle.write(noise)
    assert quick_check(path) is not None  # really damaged (a finding, or a page unreadable)


@pytest.fixture
def emulator() -> Iterator[EmulatorProcess]:
    with EmulatorProcess(token=TOKEN) as emulator:
        yield emulator


def test_a_damaged_file_stops_the_start_with_one_line_until_restored(
    tmp_path: Path, emulator: EmulatorProcess
) -> None:
    env = bot_env(
        TELEGRAM_BOT_TOKEN=TOKEN,
        TELEGRAM_API_BASE_URL=emulator.api_base_url,
        JIFEN_DATA_DIR=str(tmp_path / "data"),
        PYTHONPATH=str(REPO),
    )
    with emulator.client() as client:
        played(tmp_path, env, client)


def played(tmp_path: Path, env: dict[str, str], client: EmulatorClient) -> None:
    """40 transfers and a backup; the file damaged; a start refused until restored."""
    database = tmp_path / "data" / "jifen.sqlite3"

    def jifen(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, *(args or ("-m", "bot.cli", "run"))]
        return subprocess.run(
            command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120
        )

    members(client, CHAT)
    bot = BotProcess(env, tmp_path / "bot.log", cwd=tmp_path)
    try:
        bot.start().wait_ready()
        seat(client, CHAT)
        pay(client, CHAT, 0, 40)
        assert wait_until(lambda: len(transfers(client, CHAT)) >= 40, 60), bot.log()
        backup = tmp_path / "evening.sqlite3"
        assert jifen("-m", "bot.cli", "backup", str(backup)).returncode == 0
        assert bot.stop() == 0
    finally:
        bot.close()
    assert jifen(str(HEALTHCHECK)).returncode == 0
    damage(database)
    pay(client, CHAT, 40, 3)  # Telegram keeps them while the bot is down
    started = jifen()
    assert started.returncode == 2, started.stderr
    lines = started.stderr.strip().splitlines()
    assert len(lines) == 1 and "not starting: the database" in lines[0], started.stderr
    assert "is damaged (PRAGMA quick_check: " in lines[0] and "jifen restore" in lines[0]
    health = jifen(str(HEALTHCHECK))
    assert health.returncode == 1 and health.stderr.startswith("database damaged: "), health
    restored = jifen("-m", "bot.cli", "restore", str(tmp_path / "evening.sqlite3"))
    assert restored.returncode == 0, restored.stderr
    bot = BotProcess(env, tmp_path / "bot.log", cwd=tmp_path)
    try:
        bot.start().wait_ready()
        assert wait_until(lambda: len(transfers(client, CHAT)) >= 43, 60), bot.log()
        assert transfers(client, CHAT) == list(range(1, 44))
        assert jifen(str(HEALTHCHECK)).returncode == 0
        assert bot.stop() == 0
    finally:
        bot.close()
