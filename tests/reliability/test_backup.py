"""Backups: SQLite online backup while the bot writes, restore, the bot on the restored copy,
and PostgreSQL's pg_dump/pg_restore as the README documents them."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import threading
import uuid
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.engine import Engine

from bot.commands.parsing import parse
from service.context import Actor, Ctx
from service.core import Service
from storage.backup import BackupError, BackupNotSupported, backup, restore
from storage.db import make_engine
from storage.migrate import upgrade
from tests.conftest import PG_ADMIN_URL, postgres_available
from tests.integration.helpers import Chat

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
CHAT = -1_000_777
NAMES = ("Ann", "Bob", "Cat", "Dan")


def expected(hands: int) -> dict[str, Fraction]:
    """Balances after `hands` hands of `/hu <n> zimo`, winners 1, 2, 3, 4, 1, …: the winner
    gets 3 from each of the others."""
    out = dict.fromkeys(NAMES, Fraction(0))
    for i in range(hands):
        winner = NAMES[i % 4]
        for name in NAMES:
            out[name] += 9 if name == winner else -3
    return out


def read_backup(path: Path) -> tuple[int, dict[str, Fraction]]:
    """A backup's live hands (read with plain sqlite3, after its integrity check) and the
    mahjong balances the bot shows on it."""
    conn = sqlite3.connect(path)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("delete",)
        hands = conn.execute(
            "SELECT count(*) FROM event WHERE chat_id = ? AND kind = 'hand' AND undone_by IS NULL",
            (CHAT,),
        ).fetchone()[0]
    finally:
        conn.close()
    engine = make_engine(f"sqlite:///{path}")
    try:
        return int(hands), Chat(engine, CHAT).balances()
    finally:
        engine.dispose()


def test_backup_while_the_bot_writes_is_a_consistent_state(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    chat = Chat(sqlite_engine, CHAT)
    chat.seat("mahjong", *NAMES)
    stop = threading.Event()
    failures: list[BaseException] = []

    def writer() -> None:
        try:
            i = 0
            while not stop.is_set() and i < 400:
                chat.say(NAMES[0], f"/hu {i % 4 + 1} zimo")
                i += 1
        except BaseException as err:  # reported by the main thread
            failures.append(err)

    thread = threading.Thread(target=writer)
    thread.start()
    seen = []
    try:
        for n in range(8):
            path = backup(sqlite_engine, tmp_path / "backups" / f"b{n}.sqlite3")
            hands, balances = read_backup(path)
            assert balances == (expected(hands) if hands else {}), f"backup {n} at {hands} hands"
            seen.append(hands)
    finally:
        stop.set()
        thread.join(60)
    assert not failures, failures
    assert seen[-1] > 0 and len(set(seen)) > 1, f"the backups did not overlap writes: {seen}"


def test_restore_and_the_bot_works_on_the_copy(sqlite_engine: Engine, tmp_path: Path) -> None:
    chat = Chat(sqlite_engine, CHAT)
    chat.seat("mahjong", *NAMES)
    for i in range(6):
        chat.say(NAMES[0], f"/hu {i % 4 + 1} zimo")
    copy = backup(str(sqlite_engine.url), tmp_path / "jifen-backup.sqlite3")
    chat.say(NAMES[0], "/hu 1 zimo")  # after the backup: gone after the restore
    target = tmp_path / "restored" / "jifen.sqlite3"
    restore(copy, f"sqlite:///{target}")
    restored = make_engine(f"sqlite:///{target}")
    try:
        upgrade(restored)  # the bot upgrades on start: a no-op here
        again = Chat(restored, CHAT)
        assert again.balances() == expected(6)
        again.say(NAMES[0], "/hu 3 zimo")
        assert again.balances() == expected(7)  # the 7th hand of the rotation: Cat wins
        again.say(NAMES[0], "/undo")
        assert again.balances() == expected(6)
    finally:
        restored.dispose()


def test_restore_over_a_crashed_database_ignores_its_stale_wal(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    """The bot was killed (its -wal file holds commits); the restored copy must win."""
    live = Path(str(sqlite_engine.url.database))
    Chat(sqlite_engine, CHAT).seat("mahjong", *NAMES)
    copy = backup(sqlite_engine, tmp_path / "b.sqlite3")
    sqlite_engine.dispose()
    script = (
        "import os, sys; sys.path.insert(0, sys.argv[2])\n"
        "from storage.db import make_engine\n"
        "from tests.integration.helpers import Chat\n"
        "engine = make_engine('sqlite:///' + sys.argv[1])\n"
        "chat = Chat(engine, -1_000_777)\n"
        "[chat.say('Ann', '/hu 2 zimo') for _ in range(3)]\n"
        "os._exit(0)  # like SIGKILL: no checkpoint, the -wal stays\n"
    )
    subprocess.run([sys.executable, "-c", script, str(live), str(REPO)], check=True, timeout=60)
    assert Path(f"{live}-wal").exists() and Path(f"{live}-wal").stat().st_size > 0
    restore(copy, f"sqlite:///{live}")
    assert not Path(f"{live}-wal").exists()
    hands, balances = read_backup(live)
    assert (hands, balances) == (0, {})


def test_backup_refuses_what_it_cannot_do(sqlite_engine: Engine, tmp_path: Path) -> None:
    with pytest.raises(BackupNotSupported) as info:
        backup("postgresql://jifen:s3cret@db.example/jifen", tmp_path / "x")
    assert "pg_dump" in str(info.value) and "pg_restore" in str(info.value)
    assert "s3cret" not in str(info.value)
    with pytest.raises(BackupError):
        backup(f"sqlite:///{tmp_path}/missing.sqlite3", tmp_path / "x")
    with pytest.raises(BackupError):
        backup("sqlite://", tmp_path / "x")
    with pytest.raises(BackupError):
        backup(sqlite_engine, str(sqlite_engine.url.database))
    with pytest.raises(BackupError):
        backup(sqlite_engine, tmp_path)  # a directory
    bad = tmp_path / "not-a-db.sqlite3"
    bad.write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(BackupError):
        restore(bad, f"sqlite:///{tmp_path}/target.sqlite3")
    assert not (tmp_path / "target.sqlite3").exists()


def test_cli_backup(sqlite_engine: Engine, tmp_path: Path) -> None:
    """`jifen backup PATH`: an online copy on SQLite; on PostgreSQL it points to pg_dump."""
    env = os.environ | {"DATABASE_URL": str(sqlite_engine.url), "PYTHONPATH": str(REPO)}
    env.pop("TELEGRAM_BOT_TOKEN", None)
    Chat(sqlite_engine, CHAT).seat("mahjong", *NAMES)
    Chat(sqlite_engine, CHAT).say(NAMES[0], "/hu 1 zimo")
    target = tmp_path / "cli" / "backup.sqlite3"
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "backup", str(target)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert read_backup(target) == (1, expected(1))
    pg = subprocess.run(
        [sys.executable, "-m", "bot.cli", "backup", str(tmp_path / "pg")],
        capture_output=True,
        text=True,
        env=env | {"DATABASE_URL": "postgresql://u:s3cret@127.0.0.1:1/x"},
        timeout=60,
    )
    assert pg.returncode != 0 and "pg_dump" in pg.stdout + pg.stderr
    assert "s3cret" not in pg.stdout + pg.stderr


@pytest.mark.postgres
def test_pg_dump_and_pg_restore_as_documented(tmp_path: Path) -> None:
    """The README's PostgreSQL backup: pg_dump --format=custom, pg_restore into an empty db."""
    if not postgres_available():
        pytest.skip(f"no PostgreSQL server answers at {PG_ADMIN_URL}")
    if not (shutil.which("pg_dump") and shutil.which("pg_restore")):
        pytest.skip("pg_dump/pg_restore are not installed")
    admin = create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    names = [f"jifen_dump_{uuid.uuid4().hex[:8]}" for _ in range(2)]
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    plain = base.replace("postgresql+psycopg://", "postgresql://")
    try:
        with admin.connect() as conn:
            for name in names:
                conn.execute(text(f'CREATE DATABASE "{name}"'))
        source = make_engine(f"{base}/{names[0]}")
        upgrade(source)
        chat = Chat(source, CHAT)
        chat.seat("mahjong", *NAMES)
        for i in range(5):
            chat.say(NAMES[0], f"/hu {i % 4 + 1} zimo")
        dump = tmp_path / "jifen.dump"
        subprocess.run(
            ["pg_dump", "--format=custom", f"--file={dump}", f"{plain}/{names[0]}"],
            check=True,
            timeout=60,
        )
        source.dispose()
        subprocess.run(
            [
                "pg_restore",
                "--clean",
                "--if-exists",
                "--no-owner",
                f"--dbname={plain}/{names[1]}",
                str(dump),
            ],
            check=True,
            timeout=60,
        )
        restored = make_engine(f"{base}/{names[1]}")
        upgrade(restored)
        again = Chat(restored, CHAT)
        assert again.balances() == expected(5)
        again.say(NAMES[0], "/hu 2 zimo")  # sequences came along: new rows get fresh ids
        assert again.balances() == expected(6)
        restored.dispose()
    finally:
        with admin.connect() as conn:
            for name in names:
                conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


def test_service_is_usable_on_a_backup_opened_read_write(
    sqlite_engine: Engine, tmp_path: Path
) -> None:
    """A backup is a complete database: the service opens it directly."""
    Chat(sqlite_engine, CHAT).seat("mahjong", *NAMES)
    path = backup(sqlite_engine, tmp_path / "copy.sqlite3")
    engine = make_engine(f"sqlite:///{path}")
    try:
        ctx = Ctx(chat_id=CHAT, actor=Actor(1, "Ann"), update_id=None, text="/hu 1 zimo")
        Service(engine).execute(ctx, parse("/hu 1 zimo"))
        assert Chat(engine, CHAT).balances() == expected(1)
    finally:
        engine.dispose()
