"""The bot token never appears in the logs: the bot as a process against the emulator, with
work, failing handlers, a lost Bot API server, and a token the server rejects."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.botprocess import REPO, BotProcess, bot_env
from tests.emulator.server import EmulatorProcess

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(120)]

TOKEN = "7654321:AAH-Secret_TokenPart-for-logs-test"
SECRET = TOKEN.split(":", 1)[1]
GROUP = {"id": -100_321, "type": "supergroup", "title": "logs"}


def assert_no_token(output: str) -> None:
    assert TOKEN not in output, "the bot token is in the logs"
    assert SECRET not in output, "the secret part of the bot token is in the logs"


def test_token_never_logged_while_working_and_failing(tmp_path: Path) -> None:
    emulator = EmulatorProcess().start()
    client = emulator.client()
    bot = BotProcess(
        bot_env(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=emulator.api_base_url,
            DATABASE_URL=f"sqlite:///{tmp_path}/logs.sqlite3",
        ),
        tmp_path / "bot.log",
    )
    try:
        for name in ("Ann", "Bob", "Cat", "Dan"):
            client.set_member(GROUP, name, "member")
        bot.start()
        bot.wait_ready()
        since = client.last_seq()
        for line in ("/new mahjong", "/seats Ann Bob Cat Dan", "/hu 1 zimo", "/standings"):
            client.send(GROUP, "Ann", line)
        entries = []
        deadline = time.monotonic() + 20
        while len(entries) < 4 and time.monotonic() < deadline:
            entries = client.outbox(GROUP["id"], since)
            time.sleep(0.1)
        assert len(entries) >= 4, entries
        hand = next(e for e in entries if "Hand #1" in e["plain_text"])
        client.press(GROUP, "Bob", hand["message_id"], "v1:undo:²")  # a failing handler
        client.press(GROUP, "Bob", hand["message_id"], "garbage")
        # The bot is kicked: every reply fails with 403, refused for good, and it is logged.
        client.set_member(GROUP, 7000001, "kicked")
        client.send(GROUP, "Ann", "/standings")
        assert _wait_for(bot, "refused for good"), bot.log()[-2000:]
        # The Bot API server goes away: polling fails and is retried (and logged).
        emulator.stop()
        time.sleep(3)
    finally:
        bot.close()
        emulator.stop()
        client.close()
    logs = bot.log()
    assert "refused for good" in logs and "Forbidden" in logs  # the errors were logged …
    assert_no_token(logs)  # … without the token


def _wait_for(bot: BotProcess, text: str, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in bot.log():
            return True
        time.sleep(0.1)
    return False


def test_token_not_logged_when_the_server_rejects_it(tmp_path: Path) -> None:
    """PTB's InvalidToken message contains the token itself."""
    with EmulatorProcess(token="1:the-only-token-this-server-accepts") as emulator:
        done = subprocess.run(
            [sys.executable, "-m", "bot.cli", "run"],
            cwd=REPO,
            env=bot_env(
                TELEGRAM_BOT_TOKEN=TOKEN,
                TELEGRAM_API_BASE_URL=emulator.api_base_url,
                DATABASE_URL=f"sqlite:///{tmp_path}/logs.sqlite3",
            ),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode != 0
    assert "rejected" in done.stderr.lower() or "unauthorized" in done.stderr.lower()
    assert_no_token(done.stdout + done.stderr)
