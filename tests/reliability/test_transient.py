"""Issue 15, round two, point 2: a transient database failure does not drop the update. The
database goes away under the bot (a PostgreSQL server of the test's own, restarted mid-run; an
SQLite file on a full filesystem): the update is not acknowledged but tried again, its member
is told once, and in the end every update counts exactly once."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from telegram import Update

from bot.delivery import webhook
from bot.delivery.polling import process_batch
from tests.conftest import migrated
from tests.emulator.api import Chat, FakeBotApi, OutboxEntry
from tests.reliability.filekit import fill, small_volume
from tests.reliability.pgserver import PgServer
from tests.reliability.transport_kit import PLAYERS, ZH, Hook, new_group, webhook_bot

pytestmark = pytest.mark.slow
A, B, C, D = PLAYERS
NOTICE = "briefly unavailable"
ZH_NOTICE = "暂时无法使用"


def built(hook: Hook, raw: list[dict[str, Any]]) -> list[Update]:
    """Updates as getUpdates gives them to the polling loop."""
    return [Update.de_json(item, hook.app.bot) for item in raw]


@pytest.fixture(scope="module")
def pg() -> Iterator[PgServer]:
    server = PgServer().start()
    try:
        yield server
    finally:
        server.stop()


def counts(engine: Engine, chat_id: int) -> tuple[int, int]:
    """(hands recorded, processed update ids) of a chat."""
    with engine.connect() as conn:
        hands = conn.execute(
            text("SELECT count(*) FROM event WHERE chat_id = :c AND kind = 'hand'"), {"c": chat_id}
        ).scalar_one()
        claimed = conn.execute(
            text("SELECT count(*) FROM processed_update WHERE chat_id = :c"), {"c": chat_id}
        ).scalar_one()
    return int(hands), int(claimed)


def balance_sum(engine: Engine) -> int:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT amount FROM balance")).scalars().all()
    from fractions import Fraction

    return int(sum(Fraction(str(v)) for v in rows))


async def seat(hook: Hook, chat: Chat) -> None:
    await deliver(hook, hook.api.send_text(chat, A, "/new mahjong"))
    for user in PLAYERS:
        await deliver(hook, hook.api.send_text(chat, user, "/join"))


async def deliver(hook: Hook, update: dict[str, Any], statuses: list[int] | None = None) -> None:
    """As Telegram does: POST until a 2xx answer (after a 5xx or a broken connection)."""
    hook.api.take_updates()
    while True:
        try:
            status = (await hook.post(update)).status_code
        except httpx.HTTPError:
            status = 0
        if statuses is not None:
            statuses.append(status)
        if 200 <= status < 300:
            return
        await asyncio.sleep(0.3)


def notices(entries: list[OutboxEntry]) -> list[OutboxEntry]:
    return [e for e in entries if NOTICE in e.plain_text or ZH_NOTICE in e.plain_text]


def wrong(entries: list[OutboxEntry]) -> list[str]:
    return [e.plain_text for e in entries if "went wrong" in e.plain_text or "出错" in e.plain_text]


async def test_webhook_through_two_postgres_restarts(
    pg: PgServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(webhook, "WEBHOOK_RETRY_FOR", 2.0)  # then 503: Telegram redelivers
    with migrated(pg.url) as engine:
        async with webhook_bot(engine) as hook:
            chats = [new_group(hook.api, -3000 - i) for i in range(6)]
            for chat in chats:
                await seat(hook, chat)
            rounds = 12
            statuses: list[int] = []

            async def play(chat: Chat) -> None:
                for n in range(rounds):
                    winner = "ABCD"[n % 4]
                    update = hook.api.send_text(chat, ZH, f"/hu {winner} zimo")
                    await deliver(hook, update, statuses)
                    await asyncio.sleep(0.05)

            async def restarts() -> None:
                for _ in range(2):
                    await asyncio.sleep(0.8)
                    await asyncio.to_thread(pg.restart, 1.5)

            await asyncio.gather(*(play(chat) for chat in chats), restarts())
            for chat in chats:
                assert counts(engine, chat.id) == (rounds, 5 + rounds)  # none lost, none doubled
            assert balance_sum(engine) == 0
            entries = hook.api.outbox_since(0)
            assert not wrong(entries)
            told = [(e.chat_id, e.reply_to_message_id) for e in notices(entries)]
            assert len(told) == len(set(told))  # each waiting member told once
            print(f"\nwebhook answers: {len(statuses)}, non-2xx: {sum(s != 200 for s in statuses)}")


async def test_polling_through_a_postgres_restart(pg: PgServer) -> None:
    with migrated(pg.url) as engine:
        async with webhook_bot(engine) as hook:  # its app, polled in batches
            api: FakeBotApi = hook.api
            chats = [new_group(api, -3100 - i) for i in range(4)]
            for chat in chats:
                api.send_text(chat, A, "/new mahjong")
                for user in PLAYERS:
                    api.send_text(chat, user, "/join")
            await process_batch(hook.app, built(hook, api.take_updates()))
            for chat in chats:
                for n in range(6):
                    api.send_text(chat, ZH, f"/hu {'ABCD'[n % 4]} zimo")
            batch = built(hook, api.take_updates())
            restart = asyncio.create_task(asyncio.to_thread(pg.restart, 2.0))
            await asyncio.sleep(0.3)  # the batch meets the server going down
            assert await process_batch(hook.app, batch) == []
            await restart
            for chat in chats:
                assert counts(engine, chat.id) == (6, 11)
            assert not wrong(api.outbox_since(0))


# ---------------------------------------------------------------- a full disk (SQLite)


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 6 MB tmpfs (we are root in CI); skipped where it cannot be mounted."""
    with small_volume(tmp_path / "disk", "6m") as mount:
        yield mount


async def test_a_full_disk_is_said_once_and_nothing_is_half_written(
    small_disk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(webhook, "WEBHOOK_RETRY_FOR", 1.0)
    with migrated(f"sqlite:///{small_disk}/jifen.sqlite3") as engine:
        async with webhook_bot(engine) as hook:
            chat = new_group(hook.api, -3200)
            await seat(hook, chat)
            since = hook.api.last_seq
            with engine.connect() as conn:  # the bot folds the WAL back on a full disk (issue
                conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")  # 39): none is left
            filler = small_disk / "filler"
            fill(filler)
            hand = hook.api.send_text(chat, ZH, "/hu A zimo qys")
            hook.api.take_updates()
            for _ in range(2):  # Telegram tries again while the disk is still full
                assert (await hook.post(hand)).status_code == 503
            entries = hook.api.outbox_since(since, chat.id)
            assert len(notices(entries)) == 1 and not wrong(entries), entries
            assert ZH_NOTICE in entries[0].plain_text  # in the member's language
            assert counts(engine, chat.id) == (0, 5)  # nothing half-written
            filler.unlink()
            assert (await hook.post(hand)).status_code == 200
            assert (await hook.post(hand)).status_code == 200  # once more: recorded once
            replies = await hook.replies(chat, since)
            assert counts(engine, chat.id) == (1, 6)
            texts = [e.plain_text for e in replies]
            assert len(texts) == 3 and "A +18" in texts[1], texts  # the notice, then the hand
            assert "A +18" in texts[2]  # and the redelivery's answer: what was recorded
