"""``start_s`` and ``rss_mb``: the offline console as a separate process.

``python -m bot.cli console --db <file>`` is started with a pipe as stdin (kept open); the
clock runs from just before the process is spawned until its reply to a first ``/help`` line
has been printed (imports, engine, schema check, Application built and started). The process
then sits idle for ``IDLE_S`` seconds and its ``VmRSS`` is read from ``/proc/<pid>/status``.
The database is migrated beforehand (a restart, the usual case); ``first_start_s`` in the
detail is the same on a fresh file (it includes creating the schema).
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from bench.harness import migrated_engine
from bench.timing import median, rounded

REPO = Path(__file__).resolve().parent.parent
IDLE_S = 1.0
TIMEOUT_S = 60.0
CLEAN_ENV = ("DATABASE_URL", "TELEGRAM_BOT_TOKEN", "WEBHOOK_URL")


@dataclass(frozen=True)
class ProcessResult:
    start_s: float
    rss_mb: float
    first_start_s: float | None
    runs: int

    def detail(self) -> dict[str, float | int | None]:
        return {"first_start_s": rounded(self.first_start_s, 3), "runs": self.runs}


def child_env() -> dict[str, str]:
    """A child's environment: this one without bot settings, the repository importable."""
    env = {k: v for k, v in os.environ.items() if k not in CLEAN_ENV}
    env["PYTHONPATH"] = str(REPO)
    return env


def _read_reply(proc: subprocess.Popen[bytes]) -> None:
    """Wait until the console has printed a whole reply block (it ends in a blank line)."""
    assert proc.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(proc.stdout, selectors.EVENT_READ)
    seen, deadline = b"", time.monotonic() + TIMEOUT_S
    while b"\n\n" not in seen.lstrip(b"\n"):
        if time.monotonic() > deadline or proc.poll() is not None:
            raise RuntimeError(f"console gave no reply: {seen[-300:]!r}")
        if selector.select(timeout=0.5):
            seen += os.read(proc.stdout.fileno(), 65536)
    selector.close()


def vm_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


def one_start(db: Path) -> tuple[float, float]:
    """(seconds until the first reply, idle RSS in MB) of one console process."""
    command = [sys.executable, "-m", "bot.cli", "console", "--db", str(db)]
    start = time.perf_counter()
    proc = subprocess.Popen(
        command,
        cwd=REPO,
        env=child_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert proc.stdin is not None
    try:
        proc.stdin.write(b"me: /help\n")
        proc.stdin.flush()
        _read_reply(proc)
        elapsed = time.perf_counter() - start
        time.sleep(IDLE_S)
        rss = vm_rss_mb(proc.pid)
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return elapsed, rss


def measure_process(workdir: Path, *, runs: int, fresh: bool = True) -> ProcessResult:
    """Median start-up time and idle RSS over ``runs`` restarts on a migrated database.

    With ``fresh``, a first start on a new file is timed too (it creates the schema); without,
    the schema is created in this process and ``first_start_s`` is null.
    """
    db = workdir / "console.sqlite3"
    first_start: float | None = None
    if fresh:
        first_start, _ = one_start(db)
    else:
        migrated_engine(f"sqlite:///{db}").dispose()
    starts, rss = [], []
    for _ in range(runs):
        seconds, mb = one_start(db)
        starts.append(seconds)
        rss.append(mb)
    return ProcessResult(median(starts), median(rss), first_start, runs)
