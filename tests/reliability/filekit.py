"""Tools of the tests of the SQLite file under a real bot process: a small volume of the test's
own (a tmpfs: we are root here and in CI; skipped, saying why, where it cannot be mounted),
filled to the last byte; a group seated, transfers paid there and read back from the bot's
replies."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.emulator.server import EmulatorClient
from tests.reliability.crashkit import NAMES

TRANSFER = re.compile(r"Transfer #(\d+)")


@contextlib.contextmanager
def small_volume(mount: Path, size: str) -> Iterator[Path]:
    """A tmpfs of `size` (e.g. "3m") mounted at `mount` while the block runs."""
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a {size} tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(path: Path) -> None:
    """Fill the filesystem of `path` to the last byte."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        for size in (65536, 1):
            with contextlib.suppress(OSError):
                while os.write(fd, b"\0" * size):
                    pass
    finally:
        os.close(fd)


def members(client: EmulatorClient, chat: dict[str, Any]) -> None:
    """The four of `NAMES` are members of the group."""
    for name in NAMES:
        client.set_member(chat, name, "member")


def seat(client: EmulatorClient, chat: dict[str, Any]) -> None:
    """A mahjong table in the group, its four seats taken."""
    client.send(chat, "Ann", "/new mahjong")
    client.send(chat, "Ann", "/seats " + " ".join(NAMES))


def transfers(client: EmulatorClient, chat: dict[str, Any]) -> list[int]:
    """The transfer numbers the bot confirmed in the group, in order."""
    found = (TRANSFER.search(e["plain_text"]) for e in client.outbox(chat["id"]))
    return [int(m[1]) for m in found if m]


def pay(client: EmulatorClient, chat: dict[str, Any], first: int, n: int) -> None:
    """Transfers `first` to `first + n - 1` from Ann to Dan, sent by members in turn: 2 and 1
    by turns, never the same transfer twice running (that would be asked about)."""
    for i in range(first, first + n):
        client.send(chat, NAMES[i % 3], f"/pay Ann Dan {1 + i % 2}")
