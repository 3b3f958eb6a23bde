"""Issue 39, point 7: a real polling bot on SQLite on a 3 MB volume.

SQLite folds its WAL back into the database only every `wal_autocheckpoint` pages (1000 by
default, 4 MB): on a 3 MB volume the WAL filled it and then every write failed, for good (55
recorded, the rest never confirmed). Now the WAL never outgrows a share of its volume, so a
long evening is recorded; and when the disk is full all the same (another file took it), the
bot folds the WAL back and empties it (`wal_checkpoint(TRUNCATE)`) before each retry, says in
the log how much space the database needs, the health check says "disk full", and once there
is room again every update waiting is recorded, once, in order.

Needs a small tmpfs (we are root here and in CI): skipped, saying why, where it cannot mount.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import exc

from storage import disk
from storage.db import make_engine, writing
from tests.botprocess import REPO, BotProcess, bot_env
from tests.emulator.server import EmulatorProcess
from tests.reliability.crashkit import wait_until
from tests.reliability.filekit import fill, members, pay, seat, small_volume, transfers

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(400)]

TOKEN = "4246:FULLDISK-test-token"
CHAT = {"id": -100_990, "type": "supergroup", "title": "table"}
HEALTHCHECK = REPO / "deploy" / "healthcheck.py"
NOTICE = "briefly unavailable"


@pytest.fixture
def volume(tmp_path: Path) -> Iterator[Path]:
    with small_volume(tmp_path / "volume", "3m") as mount:
        yield mount


def test_a_small_volume_holds_a_long_evening_and_a_full_one_recovers(
    tmp_path: Path, volume: Path
) -> None:
    with EmulatorProcess(token=TOKEN) as emulator, emulator.client() as client:
        env = bot_env(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=emulator.api_base_url,
            JIFEN_DATA_DIR=str(volume / "data"),
            JIFEN_FLOOD="off",  # three members send 190 commands in no time
            PYTHONPATH=str(REPO),
        )

        def health() -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [sys.executable, str(HEALTHCHECK)],
                cwd=tmp_path,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
            )

        members(client, CHAT)
        bot = BotProcess(env, tmp_path / "bot.log", cwd=tmp_path)
        try:
            bot.start().wait_ready()
            seat(client, CHAT)
            pay(client, CHAT, 0, 150)  # some 7 MB of WAL without a checkpoint: the volume is 3 MB
            assert wait_until(lambda: len(transfers(client, CHAT)) >= 150, 180), (
                transfers(client, CHAT)[-3:],
                bot.log()[-3000:],
            )
            assert transfers(client, CHAT) == list(range(1, 151))
            assert health().returncode == 0, health().stderr

            filler = volume / "filler"  # another file takes the rest of the volume
            fill(filler)
            paid = 150  # until a write is refused: the file's free pages take the first ones
            while paid < 150 + 40 * 10 and not full(bot):
                pay(client, CHAT, paid, 40)
                paid += 40
                wait_until(lambda n=paid: full(bot) or len(transfers(client, CHAT)) >= n, 60)
            assert wait_until(lambda: full(bot), 120), bot.log()[-3000:]
            line = next(x for x in bot.log().splitlines() if "needs" in x and "disk full" in x)
            assert re.search(r"needs \d+(\.\d)? [KM]B", line), line
            checked = health()
            assert checked.returncode == 1 and checked.stderr.startswith("disk full"), checked
            assert bot.alive

            filler.unlink()  # room again
            assert wait_until(lambda: len(transfers(client, CHAT)) >= paid, 120), bot.log()[-3000:]
            assert transfers(client, CHAT) == list(range(1, paid + 1))  # each once, in order
            told = [e for e in client.outbox(CHAT["id"]) if NOTICE in e["plain_text"]]
            assert 1 <= len(told) <= 40  # at most once per update: a batch waits at most
            assert health().returncode == 0, health().stderr
            assert bot.stop() == 0
        finally:
            bot.close()
            print(bot.log()[-5000:])


def full(bot: BotProcess) -> bool:
    """The bot said in its log that the disk is full, and what the database needs."""
    return "disk full" in bot.log() and "needs" in bot.log()


def test_a_wal_that_took_the_disk_is_folded_back_once_there_is_room_for_it(volume: Path) -> None:
    """The WAL grown over the volume (SQLite's default threshold, or a long reader), as the
    bot's writes grow it: the same pages (balances, counters) again and again, a few new ones.
    A write fails for space, folding back fails too while the file cannot grow by the new
    pages, and the room measured says what it needs; freed that, `make_room` empties the WAL
    and writes go on."""
    path = volume / "book.sqlite3"
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT)")
            for i in range(100):
                conn.exec_driver_sql(f"INSERT INTO note (body) VALUES ('{i:0>1000}')")
        assert disk.make_room(engine)
        spare = volume / "spare"
        spare.write_bytes(b"\0" * 256 * 1024)  # something else on the volume, deleted later
        with pytest.raises(exc.OperationalError) as failed, engine.connect() as conn:
            writer = writing(conn)  # each transaction BEGIN IMMEDIATE, as the bot's writes
            writer.exec_driver_sql("PRAGMA wal_autocheckpoint=0")  # the WAL only grows
            writer.commit()
            for i in range(100_000):
                with writer.begin():
                    writer.exec_driver_sql(
                        f"UPDATE note SET body = '{i:0>1000}' WHERE id % 10 = {i % 10}"
                    )
                    writer.exec_driver_sql(f"INSERT INTO note (body) VALUES ('{i}')")
        assert disk.is_full(failed.value)
        assert not disk.is_full(exc.OperationalError("INSERT", {}, ValueError("no")))
        before = disk.room(engine)
        assert before is not None and before.full and before.wal > 2 * 1024 * 1024, before
        assert 0 < before.fold < 256 * 1024 and not disk.make_room(engine)  # cannot grow
        assert re.search(r"needs \d+ KB", str(before)), str(before)
        spare.unlink()  # room for the file to take the WAL's new pages
        assert disk.make_room(engine)
        after = disk.room(engine)
        assert after is not None and after.wal == 0 and not after.full, after
        with engine.begin() as conn:
            conn.exec_driver_sql("INSERT INTO note (body) VALUES ('after')")
    finally:
        engine.dispose()


def test_the_wal_is_folded_back_before_it_could_fill_a_small_volume(volume: Path) -> None:
    assert disk.wal_pages(str(volume / "x.sqlite3")) * 4096 <= 3 * 1024 * 1024 // disk.SHARE
    assert disk.wal_pages("/") == disk.DEFAULT_PAGES or shutil.disk_usage("/").total < 33e6
