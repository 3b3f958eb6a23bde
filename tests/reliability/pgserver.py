"""A PostgreSQL server of the test's own (its data directory, its port) that the test may stop
and restart: `initdb`/`pg_ctl` from /usr/lib/postgresql/*/bin, run as the `postgres` user when
the tests run as root. `PgServer.start()` skips the test with the reason when that is impossible."""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from tests.botprocess import free_port


def _bin_dir() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


class PgServer:
    def __init__(self) -> None:
        self.bin = _bin_dir()
        self.port = free_port()
        self.root = Path(tempfile.mkdtemp(prefix="jifen-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.user: str | None = None

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        assert self.bin is not None
        command = [str(self.bin / args[0]), *args[1:]]
        if self.user:
            command = ["runuser", "-u", self.user, "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check, timeout=120)

    def start(self) -> PgServer:
        """initdb (trust auth on loopback) and start; skips the test if it cannot."""
        if self.bin is None:
            pytest.skip("no PostgreSQL server binaries under /usr/lib/postgresql/*/bin")
        if os.geteuid() == 0:
            if shutil.which("runuser") is None:
                pytest.skip("running as root without runuser: cannot start PostgreSQL")
            self.user = "postgres"
            shutil.chown(self.root, self.user)
        try:
            self._run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust", "-E", "UTF8")
        except (subprocess.CalledProcessError, KeyError, LookupError) as err:
            pytest.skip(f"initdb failed: {err}")
        self._server("start")
        return self

    def _server(self, action: str) -> None:
        options = f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.log), "-w", "-t", "60",
            "-o", options, "-m", "fast", action,
        )  # fmt: skip

    def restart(self, down_for: float = 0.0) -> None:
        """Stop (fast: connections are cut), wait `down_for` seconds, start again."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")
        time.sleep(down_for)
        self._server("start")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
        shutil.rmtree(self.root, ignore_errors=True)
