"""The bot as a process (``python -m bot.cli run``) for the tests that need one: its environment,
its output in a log file, readiness, a clean stop and a crash."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
READY = "Application started"
START_TIMEOUT = 45.0  # a cold start (imports, migration) on a loaded 2-core machine
STOP_TIMEOUT = 15.0
# Every variable the bot reads: a developer's .env must not leak into the tests (they are always
# set, empty when unused, and python-dotenv never overrides what is set).
BOT_VARIABLES = (
    "TELEGRAM_BOT_TOKEN",
    "TELEGRAM_API_BASE_URL",
    "DATABASE_URL",
    "JIFEN_DATA_DIR",
    "JIFEN_RATE_LIMIT",
    "JIFEN_FLOOD",
    "WEBHOOK_URL",
    "WEBHOOK_SECRET",
    "WEBHOOK_LISTEN",
    "WEBHOOK_PORT",
    "JIFEN_APP_NAME",
    "JIFEN_APP_URL",
    "JIFEN_APP_LISTEN",
    "JIFEN_APP_PORT",
    "JIFEN_APP_MAX_AGE",
    "JIFEN_APP_STREAMS",
)


def free_port() -> int:
    """A TCP port that was free a moment ago on the loopback interface (for a webhook)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bot_env(**settings: str) -> dict[str, str]:
    """This process's environment with the bot's variables replaced by ``settings`` (the others
    empty, which means their default; outbound rate limiting off unless set) and the repository
    on ``PYTHONPATH``."""
    env = {k: v for k, v in os.environ.items() if k not in BOT_VARIABLES}
    paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]
    env |= dict.fromkeys(BOT_VARIABLES, "") | {"JIFEN_RATE_LIMIT": "off"}
    env |= {"PYTHONPATH": os.pathsep.join(paths), "PYTHONUNBUFFERED": "1"}
    return env | settings


class BotProcess:
    """``python -m bot.cli run`` with ``env``; stdout and stderr go to ``log_path`` (appended to
    across restarts)."""

    def __init__(self, env: dict[str, str], log_path: Path, *, cwd: Path = REPO) -> None:
        self.env = env
        self.log_path = log_path
        self.cwd = cwd
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0
        self._since = 0  # where the latest start's output begins in the log

    def start(self) -> BotProcess:
        """Start the bot (again)."""
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self._since = log.tell()
            self.process = subprocess.Popen(
                [sys.executable, "-m", "bot.cli", "run"],
                cwd=self.cwd,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=log,
            )
        self.starts += 1
        return self

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def returncode(self) -> int | None:
        return None if self.process is None else self.process.poll()

    def log(self) -> str:
        """Everything the bot wrote, every start."""
        if not self.log_path.exists():
            return ""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def wait_ready(
        self, ready: Callable[[], bool] = lambda: True, timeout: float = START_TIMEOUT
    ) -> BotProcess:
        """Until the latest start logged that the application started and ``ready()`` holds;
        fails fast if the bot exited."""
        deadline = time.monotonic() + timeout
        while READY not in self.log()[self._since :] or not ready():
            if not self.alive:
                raise AssertionError(f"the bot exited ({self.returncode}):\n{self.log()}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the bot was not ready within {timeout} s:\n{self.log()}")
            time.sleep(0.05)
        return self

    def wait(self, timeout: float) -> int:
        """Its exit code, once it exits by itself."""
        assert self.process is not None, "never started"
        return self.process.wait(timeout=timeout)

    def stop(self, timeout: float = STOP_TIMEOUT) -> int:
        """SIGTERM, as a service manager stops it; the exit code. A bot that does not exit in
        ``timeout`` seconds is killed and fails the test."""
        assert self.process is not None, "never started"
        if self.alive:
            self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"no exit {timeout} s after SIGTERM:\n{self.log()}") from None

    def kill(self) -> None:
        """SIGKILL: no cleanup, no last getUpdates, open transactions die with it."""
        if self.process is not None and self.alive:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=STOP_TIMEOUT)
            self.kills += 1

    def close(self) -> None:
        """Make sure the process is gone (teardown): SIGTERM, SIGKILL if that does not do."""
        if self.process is not None and self.alive:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.kill()

    def assert_token_not_logged(self, token: str) -> None:
        log, secret_part = self.log(), token.split(":", 1)[1]
        assert token not in log and secret_part not in log, "the bot token is in the log"
