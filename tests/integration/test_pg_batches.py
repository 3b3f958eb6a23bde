"""Batched writes on PostgreSQL (`storage.group_commit.PgBatches`): concurrent writes share one
transaction and one commit, each stays atomic on its own, two processes' batches over the same
chats do not deadlock, and a lost connection fails its batch transiently, the next reconnects."""

from __future__ import annotations

import asyncio
import itertools
import logging
import tempfile
import threading
from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from bot.delivery.transient import is_transient
from storage.db import make_engine
from storage.gateway import chats
from storage.group_commit import PgBatches, Staged, Transactions, Work
from storage.sql import Sql
from tests.integration.helpers import trace

pytestmark = pytest.mark.postgres
_ids = itertools.count(-7_000_001, -1)


@pytest.fixture
def pg(pg_engine: Engine) -> Engine:
    return pg_engine


def add_chat(chat_id: int, *, fail: bool = False) -> Work[int]:
    def work(conn: Connection) -> int:
        Sql(conn).run("INSERT INTO chat (id) VALUES (?)", (chat_id,))  # queued, not read
        if fail:
            raise ValueError(chat_id)
        return chat_id

    return work


def existing(engine: Engine, ids: list[int]) -> set[int]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id FROM chat WHERE id = ANY(:ids)"), {"ids": ids})
        return {row[0] for row in rows}


def transaction(conn: Connection) -> int:
    row = Sql(conn).row("SELECT txid_current()")
    assert row is not None
    return int(row[0])


async def test_writes_share_a_transaction_and_fail_alone(pg: Engine) -> None:
    ids = [next(_ids) for _ in range(12)]
    taken = ids[4]
    batches = PgBatches(pg)
    await batches.submit(taken, add_chat(taken))
    results = await asyncio.gather(
        *(batches.submit(i, add_chat(i, fail=n % 3 == 0)) for n, i in enumerate(ids)),
        return_exceptions=True,
    )
    # ValueError: raised by the write; the taken id's error is its own queued INSERT's.
    failed = {i for n, i in enumerate(ids) if n % 3 == 0} | {taken}
    assert {i for i, r in zip(ids, results, strict=True) if isinstance(r, Exception)} == failed
    assert "duplicate key" in str(results[4])
    assert [r for r in results if not isinstance(r, Exception)] == [
        i for i in ids if i not in failed
    ]
    assert existing(pg, ids) == (set(ids) - failed) | {taken}
    await batches.close()


async def test_an_error_that_shows_in_a_later_writes_read_is_still_its_own(pg: Engine) -> None:
    """The batch runs in one pipeline synced at its end; a queued statement's error shows at
    the next read, here the next write's. That write (and the others) must not fail for it."""
    after, fresh, taken = next(_ids), next(_ids), next(_ids)  # taken runs first (ids in order)
    batches = PgBatches(pg)
    await batches.submit(taken, add_chat(taken))

    def read_then_add(conn: Connection) -> int:
        transaction(conn)  # a read: the earlier write's duplicate key arrives here first
        return add_chat(after)(conn)

    results = await asyncio.gather(
        batches.submit(taken, add_chat(taken)),
        batches.submit(fresh, add_chat(fresh)),
        batches.submit(after, read_then_add),
        return_exceptions=True,
    )
    assert isinstance(results[0], Exception) and "duplicate key" in str(results[0])
    assert results[1:] == [fresh, after]
    assert existing(pg, [taken, fresh, after]) == {taken, fresh, after}
    await batches.close()


def counted(chat_id: int) -> Staged[int]:
    """A write in two steps (as the service's): lock the chat and read its counter (sent
    ahead of the batch when started), then count one up. Returns the counter it read."""
    lock = (
        "INSERT INTO chat (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET next_seq = chat.next_seq"
        " RETURNING id",
        (chat_id,),
    )
    read = ("SELECT next_seq FROM chat WHERE id = ?", (chat_id,))

    def finish(db: Sql) -> int:
        _locked, seen = db.lock_and_read(lock, read)
        assert seen is not None
        db.run("UPDATE chat SET next_seq = next_seq + 1 WHERE id = ?", (chat_id,))
        return int(seen[0])

    def start(conn: Connection) -> Callable[[], int]:
        db = Sql(conn)
        db.send_first(lock, read)
        return lambda: finish(db)

    return Staged(lambda conn: finish(Sql(conn)), start)


@pytest.mark.parametrize("with_a_failure", [False, True])
async def test_a_batch_sends_its_writes_first_reads_and_each_sees_the_one_before(
    pg: Engine, with_a_failure: bool
) -> None:
    """Every write's lock and first read go before any write runs; a chat's second write in
    the batch reads after its first has run. With a failing write in the batch it is run
    again write by write: the same answers, and only the failure is lost."""
    one, two, bad = next(_ids), next(_ids), next(_ids)
    batches = PgBatches(pg)
    for chat in (one, two):
        await batches.submit(chat, counted(chat))  # the chats exist, their counters at 2
    jobs = [(one, counted(one)), (two, counted(two)), (one, counted(one))]
    if with_a_failure:
        jobs.append((bad, add_chat(bad, fail=True)))
    results = await asyncio.gather(
        *(batches.submit(chat, work) for chat, work in jobs), return_exceptions=True
    )
    assert results[:3] == [2, 2, 3]
    assert [type(r) for r in results[3:]] == ([ValueError] if with_a_failure else [])
    with pg.connect() as conn:
        rows = conn.execute(
            text("SELECT id, next_seq FROM chat WHERE id = ANY(:ids)"), {"ids": [one, two, bad]}
        )
        assert dict(rows.all()) == {one: 4, two: 3}
    await batches.close()


async def test_writes_queued_together_share_one_transaction(pg: Engine) -> None:
    batches = PgBatches(pg)
    seen = await asyncio.gather(*(batches.submit(i, transaction) for i in range(5)))
    assert len(set(seen)) == 1
    assert await batches.submit(0, transaction) != seen[0]  # a later write: the next batch
    await batches.close()


async def test_a_batch_runs_on_the_event_loop_which_stays_free_while_it_waits(pg: Engine) -> None:
    """No worker thread: the writes run on the loop's own thread, and while one waits for the
    server (here for a chat's lock another transaction holds) the loop serves others."""
    chat = next(_ids)
    batches = PgBatches(pg)
    await batches.submit(chat, counted(chat))
    threads: list[int] = []

    def noted(conn: Connection) -> int:
        threads.append(threading.get_ident())
        return counted(chat)(conn)

    with pg.connect() as other:
        other.execute(text("SELECT id FROM chat WHERE id = :id FOR UPDATE"), {"id": chat})
        write = asyncio.create_task(batches.submit(chat, noted))
        ticks = 0
        while ticks < 20:  # the loop keeps turning while the write waits for the lock
            await asyncio.sleep(0.01)
            ticks += 1
        assert not write.done()
        other.commit()
    assert await asyncio.wait_for(write, 10) == 2
    assert threads == [threading.get_ident()]
    await batches.close()


async def test_closing_waits_for_the_batch_under_way(pg: Engine) -> None:
    """The bot stops while a batch waits for the server: `close` lets it end (and commit)
    before the connection goes, instead of closing it under the batch."""
    chat = next(_ids)
    batches = PgBatches(pg)

    def slow(conn: Connection) -> int:
        Sql(conn).row("SELECT pg_sleep(0.2)")
        return add_chat(chat)(conn)

    write = asyncio.create_task(batches.submit(chat, slow))
    await asyncio.sleep(0.05)  # the batch is waiting for the server
    await batches.close()
    assert write.done() and write.result() == chat
    assert existing(pg, [chat]) == {chat}


async def test_a_batch_cancelled_while_it_waits_leaves_nothing(pg: Engine) -> None:
    """The bot stops while a batch waits for the server: its callers see it cancelled, nothing
    of it is committed, and the queue starts afresh on a new connection."""
    chat, later = next(_ids), next(_ids)
    batches = PgBatches(pg)
    first = await batches.submit(0, backend)

    def slow(conn: Connection) -> int:
        add_chat(chat)(conn)
        Sql(conn).row("SELECT pg_sleep(1)")
        return chat

    write = asyncio.create_task(batches.submit(chat, slow))
    await asyncio.sleep(0.2)  # the batch is waiting for the server
    drain = batches._drain
    assert drain is not None
    drain.cancel()
    with pytest.raises(asyncio.CancelledError):
        await write
    assert existing(pg, [chat]) == set()
    assert await batches.submit(later, add_chat(later)) == later
    assert await batches.submit(0, backend) != first
    await batches.close()


def backend(conn: Connection) -> int:
    row = Sql(conn).row("SELECT pg_backend_pid()")
    assert row is not None
    return int(row[0])


def terminate(engine: Engine, pid: int) -> None:
    with engine.connect() as admin:
        admin.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})
        admin.commit()


async def test_a_connection_lost_in_a_batch_fails_it_transiently_and_the_next_reconnects(
    pg: Engine,
) -> None:
    def lose(conn: Connection) -> int:
        terminate(pg, backend(conn))
        return backend(conn)

    batches = PgBatches(pg)
    first = await batches.submit(0, backend)
    lost = next(_ids)
    results = await asyncio.gather(
        batches.submit(lost, add_chat(lost)), batches.submit(lost, lose), return_exceptions=True
    )
    assert all(isinstance(r, Exception) and is_transient(r) for r in results), results
    assert existing(pg, [lost]) == set()
    again = next(_ids)
    assert await batches.submit(again, add_chat(again)) == again
    assert await batches.submit(0, backend) != first
    await batches.close()


@pytest.mark.parametrize("reads", [False, True])
async def test_a_connection_lost_between_batches_is_replaced_unnoticed(
    pg: Engine, reads: bool
) -> None:
    """The server restarted since the last batch (as the pool's pre-ping would hide): the
    batch runs again on a new connection, whether it finds out at a read (the bot's writes,
    which commit in their pipeline) or at its end."""
    batches = PgBatches(pg)
    first = await batches.submit(0, backend)
    terminate(pg, first)
    chat = next(_ids)
    work = counted(chat) if reads else add_chat(chat)
    assert await batches.submit(chat, work) == (1 if reads else chat)
    assert existing(pg, [chat]) == {chat}
    assert await batches.submit(0, backend) != first
    await batches.close()


async def test_two_processes_lock_the_same_chats_in_one_order(pg_url: str) -> None:
    """Two queues (two bot processes) get writes for the same two chats in opposite orders;
    each write holds its chat while the other queue's batch runs: run in chat id order, the
    second batch waits for the first instead of deadlocking."""
    low, high = sorted(next(_ids) for _ in range(2))
    engines = [make_engine(pg_url) for _ in range(2)]
    try:

        def hold(chat_id: int) -> Work[int]:
            def work(conn: Connection) -> int:
                chats.lock_chat(Sql(conn), chat_id)
                Sql(conn).row("SELECT pg_sleep(0.3)")  # the other queue's batch starts meanwhile
                return chat_id

            return work

        one, two = PgBatches(engines[0]), PgBatches(engines[1])
        results = await asyncio.gather(
            one.submit(low, hold(low)),
            two.submit(high, hold(high)),
            one.submit(high, hold(high)),
            two.submit(low, hold(low)),
            return_exceptions=True,
        )
        assert results == [low, high, high, low]
        await one.close()
        await two.close()
    finally:
        for engine in engines:
            engine.dispose()


def test_a_write_of_its_own_on_a_lost_connection_leaves_it(
    pg: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """`Transactions.run` (the outbox's writes): the lost connection is thrown away, not reset
    by the pool (which would log a traceback), and the next write gets a new one."""

    def lose(conn: Connection) -> int:
        terminate(pg, backend(conn))
        return backend(conn)

    transactions = Transactions(pg)
    with caplog.at_level(logging.ERROR), pytest.raises(Exception) as lost:
        transactions.run(lose)
    assert is_transient(lost.value)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert transactions.run(backend) > 0


def test_a_write_of_its_own_whose_server_goes_mid_pipeline_leaves_its_connection(
    pg: Engine, caplog: pytest.LogCaptureFixture
) -> None:
    """The server goes while the pipeline still waits for results (as in a restart): the
    write fails transiently, the connection (left busy) is thrown away without a logged
    traceback, and the next write gets a new one."""

    def slow(conn: Connection) -> int:
        pid = backend(conn)
        threading.Timer(0.2, terminate, (pg, pid)).start()
        db = Sql(conn)
        db.run("SELECT pg_sleep(2)")  # queued, its result not read: the pipeline waits
        for _ in range(3):  # and more behind it, still pending when the server goes
            db.run("SELECT 1")
        return pid

    transactions = Transactions(pg)
    with caplog.at_level(logging.ERROR), pytest.raises(Exception) as lost:
        transactions.run(slow)
    assert is_transient(lost.value), lost.value
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text
    assert transactions.run(backend) > 0


async def test_a_batch_commits_in_its_pipeline(pg: Engine) -> None:
    """The batch's writes and its COMMIT go in one pipeline: the client waits for the server
    once at its end, for both (libpq's trace: one Sync, after the COMMIT)."""
    ids = [next(_ids) for _ in range(3)]
    batches = PgBatches(pg)
    await batches.submit(ids[0], counted(ids[0]))  # the batches' connection, made
    assert batches._connection is not None
    driver: Any = batches._connection.connection.driver_connection
    with tempfile.TemporaryFile("w+") as sink:
        trace(driver, sink)
        results = await asyncio.gather(*(batches.submit(i, counted(i)) for i in ids))
        driver.pgconn.untrace()
        sink.seek(0)
        sent = [line.split("\t")[2:4] for line in sink.read().splitlines() if line[0] == "F"]
    await batches.close()
    assert results == [2, 1, 1]
    assert existing(pg, ids) == set(ids)
    messages = [message for message, *_ in sent]
    assert messages.count("Sync") == 1
    parsed = [rest for message, *rest in sent[: messages.index("Sync")] if message == "Parse"]
    assert parsed[-1] == [' "" "COMMIT" 0']
    assert set(messages[messages.index("Sync") + 1 :]) <= {"Flush"}  # nothing sent after it
