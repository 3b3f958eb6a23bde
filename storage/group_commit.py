"""Write transactions: one per write, or the bot's batched: group commit on SQLite, `PgBatches`
on PostgreSQL (below).

SQLite lets one writer in at a time and every commit waits for the disk (an fsync, 0.2–5 ms
here). Writers that each commit alone queue behind each other's fsync, a waiting writer sleeps
in SQLite's busy handler (1 ms and more) instead of being woken, and every write costs a thread
hop. So the bot's writes queue on its event loop instead: a batch begins one transaction, runs
each queued write in its own savepoint (a failing one is rolled back alone), and commits once,
in a worker thread while the next batch gathers. Only the commit (and a wait for the write lock,
when another process holds it) leaves the loop. A write's caller resumes only after the commit
of its batch: nothing is acknowledged before it is on disk.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from functools import partial
from typing import Any, Generic, TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError
from sqlalchemy.util import await_, greenlet_spawn

from storage.db import BUSY_TIMEOUT_MS, writer

T = TypeVar("T")
Work = Callable[[Connection], T]
_IDLE = 0  # libpq's PQTRANS_IDLE: no transaction, nothing in flight
_OPEN = (2, 3)  # libpq's PQTRANS_INTRANS, PQTRANS_INERROR: a transaction is open
# The most writes a batch takes (the rest make the next): the loop runs a batch's writes without
# a break, ~0.4 ms each, and a getUpdates answer or a burst of webhooks may bring hundreds.
BATCH_MOST = 64


class Transactions:
    """Runs a write in a transaction of its own (PostgreSQL: pipelined, see `_pipelined`)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = writer(engine)
        self._pg = engine.dialect.name == "postgresql"

    def run(self, work: Work[T]) -> T:
        if self._pg:
            with self._engine.connect() as connection:
                return _pipelined(connection, work)
        with self._engine.begin() as connection:
            return work(connection)


def _pipelined(connection: Connection, work: Work[T]) -> T:
    """PostgreSQL: the whole transaction in one pipeline (psycopg's pipeline mode). BEGIN, every
    statement whose result is not read (the writes) and COMMIT are queued and sent with the next
    read, so the client waits for the server once per read and once at the end, not once per
    statement. BEGIN and COMMIT are sent as statements (the driver in autocommit): the driver's
    own would each wait for the server. An error of a queued statement is raised at the next
    read or at the end; then, or on any error of `work`, the transaction is rolled back."""
    driver: Any = connection.connection.driver_connection
    driver.autocommit = True
    try:
        with driver.pipeline():
            driver.execute("BEGIN")
            result = work(connection)
            driver.execute("COMMIT")
        return result
    finally:
        _settle(connection, driver)


def _settle(connection: Connection, driver: Any) -> None:
    """A connection of pipelined transactions in autocommit, before it goes back to the pool
    (after `_pipelined`, or `PgBatches.close`): a transaction left open (`work` failed) is
    rolled back. A connection lost, or left busy (the server went away mid-pipeline, results
    still pending), is thrown away, not given back: its reset would fail, with a logged
    traceback."""
    reusable = False
    with contextlib.suppress(Exception):  # a link gone or broken: thrown away below
        if driver.pgconn.transaction_status in _OPEN:
            driver.execute("ROLLBACK")
        if not driver.closed and driver.pgconn.transaction_status == _IDLE:
            driver.autocommit = False
            reusable = True
    if not reusable:
        connection.invalidate()


class _Job(Generic[T]):
    __slots__ = ("error", "future", "result", "work")

    def __init__(self, work: Work[T], future: asyncio.Future[T]) -> None:
        self.work, self.future = work, future
        self.result: T | None = None
        self.error: BaseException | None = None

    def settle(self) -> None:
        if self.future.done():  # its caller gave up waiting
            return
        if self.error is not None:
            self.future.set_exception(self.error)
        else:
            self.future.set_result(self.result)  # type: ignore[arg-type]


J = TypeVar("J", bound=_Job[Any])


class _Batches(Generic[J]):
    """Jobs queued on the event loop: those that come while a batch runs make the next one
    (`_commit`, which settles every job of its batch), `BATCH_MOST` at most."""

    def __init__(self) -> None:
        self._pending: list[J] = []
        self._drain: asyncio.Task[None] | None = None

    def _queue(self, job: J) -> None:
        self._pending.append(job)
        if self._drain is None:
            self._drain = asyncio.get_running_loop().create_task(self._drain_pending())

    async def _drain_pending(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending[:BATCH_MOST], self._pending[BATCH_MOST:]
                await self._commit(batch)
        finally:
            self._drain = None

    async def _commit(self, batch: list[J]) -> None:
        raise NotImplementedError

    async def _ended(self) -> None:
        """Wait for the batches queued so far to end (their errors are their jobs')."""
        if self._drain is not None:
            await asyncio.wait([self._drain])


class GroupCommit(_Batches[_Job[Any]]):
    """Writes from the event loop, batched into shared transactions (SQLite)."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self._engine = writer(engine)
        self._connection: Connection | None = None

    def _writer_connection(self) -> Connection:
        """The queue's own connection, kept from batch to batch: as the only writer it keeps its
        page cache, which SQLite drops when another connection has written. It never waits
        for the write lock (busy timeout 0): `_begin` waits in a thread instead."""
        if self._connection is None or self._connection.closed:
            self._connection = self._engine.connect()
            self._connection.connection.driver_connection.execute(  # type: ignore[union-attr]
                "PRAGMA busy_timeout = 0"
            )
        return self._connection

    async def close(self) -> None:
        """Give the queue's connection back once its last batch has ended (the bot stops)."""
        await self._ended()
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def submit(self, work: Work[T]) -> T:
        """Run `work` in the next batch; returns once that batch is committed."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue(_Job(work, future))
        return await future

    async def _commit(self, batch: list[_Job[Any]]) -> None:
        try:
            # Connecting may fail too (a full disk, a lost file): every job must still settle.
            connection = self._writer_connection()
            driver = connection.connection.driver_connection
            assert driver is not None
        except Exception as err:
            for job in batch:
                job.error = err
                job.settle()
            return
        try:
            await _begin(connection, driver)
            for job in batch:
                driver.execute("SAVEPOINT job")
                try:
                    job.result = job.work(connection)
                except Exception as err:
                    job.error = err
                    driver.execute("ROLLBACK TO job")
                driver.execute("RELEASE job")
            await asyncio.to_thread(connection.commit)  # the fsync, off the loop
        except BaseException as err:  # nothing of the batch was written
            # SQLite keeps a transaction whose COMMIT failed open, while SQLAlchemy takes it
            # for ended; the connection starts afresh.
            driver.rollback()
            connection.close()
            for job in batch:
                job.result, job.error = None, job.error or err
            if not isinstance(err, Exception):
                raise
        finally:
            for job in batch:
                job.settle()


async def _begin(connection: Connection, driver: Any) -> None:
    """BEGIN IMMEDIATE right away when the write lock is free, as it is unless another process
    writes; else wait for the lock in a worker thread, not on the loop."""
    try:
        connection.begin()
    except OperationalError:
        driver.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        try:
            await asyncio.to_thread(connection.begin)
        finally:
            driver.execute("PRAGMA busy_timeout = 0")


class _ChatJob(_Job[T]):
    __slots__ = ("chat_id",)

    def __init__(self, chat_id: int, work: Work[T], future: asyncio.Future[T]) -> None:
        super().__init__(work, future)
        self.chat_id = chat_id


class PgBatches(_Batches[_ChatJob[Any]]):
    """The bot's writes on PostgreSQL, batched: the writes that came while a batch ran make the
    next one, run on the event loop (in a greenlet: `storage.loop_wait`, whose waits for the
    server leave the loop to other chats; no worker-thread hop) on a connection the queue keeps
    (no pool checkout and pre-ping per write): one transaction, every write's first statements
    sent before any runs (`_at_once`; if a write fails, the batch runs again with each write in
    its own savepoint, so a failing one is rolled back alone: `_one_by_one`), one commit (one
    WAL flush). A write's caller resumes after the commit. The loop waits for nothing, but it
    runs the writes themselves, as the group commit does on SQLite.

    Deadlocks: every write locks its chat's row first, and all it touches then is the chat's
    own (its seasons, players, tables, ledger, stats; its update's claim, taken under the chat's
    lock). A batch runs its writes ordered by chat id (stably: one chat's keep their order), so
    two batches, in any processes, take chat locks in the same order and no cycle forms. The
    pruning of old update ids skips rows another transaction holds, so it never waits. A chat
    that moved is locked at its new id, out of that order: should that close a cycle, the
    server breaks it, the batch runs again write by write, and at most the write it picks fails,
    in its savepoint, transiently (retried as any lost connection is). The outbox's writes
    (`Service.write`) are not batched."""

    def __init__(self, engine: Engine) -> None:
        super().__init__()
        self._engine = writer(engine)
        self._connection: Connection | None = None

    async def submit(self, chat_id: int, work: Work[T]) -> T:
        """Run `work` (which locks chat `chat_id` first) in the next batch; returns once that
        batch is committed."""
        future: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self._queue(_ChatJob(chat_id, work, future))
        return await future

    async def _commit(self, batch: list[_ChatJob[Any]]) -> None:
        batch.sort(key=lambda job: job.chat_id)
        try:
            await greenlet_spawn(self._run, batch)
        except asyncio.CancelledError:  # the bot stops: the batch's end is not known
            for job in batch:
                job.future.cancel()
            raise
        finally:
            for job in batch:
                job.settle()

    async def close(self) -> None:
        """Close the queue's connection once its last batch has ended (the bot stops)."""
        await self._ended()
        if self._connection is not None:
            self._leave(self._connection)

    def _run(self, batch: list[_ChatJob[Any]], again: bool = True) -> None:
        """The batch, in `greenlet_spawn` on the loop: `_at_once` (its COMMIT in its pipeline),
        or if a statement failed there, `_one_by_one` and then the COMMIT.
        The batch's own statements are never prepared: psycopg takes a ROLLBACK TO for a
        ROLLBACK and deallocates every prepared statement, in the middle of the next pipeline
        (the server keeps them: they do not belong to transactions). A kept connection found
        lost before the COMMIT was sent (the server restarted since the last batch: what the
        pool's pre-ping hid) is replaced and the batch run again, once."""
        kept, committing = self._connection is not None, False

        def commit() -> None:
            nonlocal committing
            committing = True  # from now on, a link lost leaves the outcome unknown
            driver.execute("COMMIT", prepare=False)

        try:
            connection = self._writer_connection()
            driver: Any = connection.connection.driver_connection
            if _at_once(driver, connection, batch, commit):
                if not committing:  # `_at_once` read nothing: its COMMIT comes now
                    commit()
            else:  # rolled back (a COMMIT in its pipeline was skipped): nothing committed
                committing = False
                _one_by_one(driver, connection, batch)
                commit()
        except BaseException as err:  # nothing of the batch was written (or not known)
            lost = False
            if self._connection is not None:
                lost = self._connection.connection.driver_connection.closed  # type: ignore[union-attr]
                self._leave(self._connection, invalidate=True)
            if again and kept and lost and not committing and isinstance(err, Exception):
                for job in batch:
                    job.result = job.error = None
                self._run(batch, again=False)
                return
            for job in batch:
                job.result, job.error = None, job.error or err
            if not isinstance(err, Exception):
                raise

    def _writer_connection(self) -> Connection:
        """The queue's connection, kept from batch to batch (checked and pinged once, when
        taken, in a worker thread: psycopg's connect does not wait through `wait`), in
        autocommit: BEGIN and COMMIT are sent as statements. On the loop, its waits are the
        loop's if it is a `storage.loop_wait.LoopConnection` (as `make_engine`'s are)."""
        if self._connection is None:
            connection = await_(asyncio.to_thread(self._engine.connect))
            driver: Any = connection.connection.driver_connection
            driver.autocommit = True
            self._connection = connection
        return self._connection

    def _leave(self, connection: Connection, invalidate: bool = False) -> None:
        """Drop the queue's connection: a broken one (or one left in a failed batch) is thrown
        away, and the next batch connects afresh."""
        self._connection = None
        if invalidate:
            connection.invalidate()
        else:
            _settle(connection, connection.connection.driver_connection)
        connection.close()


class Staged(Generic[T]):
    """A write in two steps, for a batch: `start` sends its first statements (its chat's lock
    and first reads) and returns what runs the rest on their answers. Called whole, it is the
    plain write."""

    __slots__ = ("start", "work")

    def __init__(self, work: Work[T], start: Callable[[Connection], Callable[[], T]]) -> None:
        self.work, self.start = work, start

    def __call__(self, connection: Connection) -> T:
        return self.work(connection)


def _at_once(
    driver: Any, connection: Connection, batch: list[_ChatJob[Any]], commit: Callable[[], None]
) -> bool:
    """The batch in one transaction and one pipeline, without savepoints: first every write's
    chat lock and first reads are sent (`Staged.start`, in the batch's chat order; a chat's
    second write in the batch starts after its first has run), then each write runs on their
    answers, and `commit` queues the COMMIT behind them. The batch waits for the server once
    for all of them, and once at its end, for its writes and its commit at once. (A batch that
    read nothing leaves the COMMIT to `PgBatches._run`: a kept link lost since the last batch
    shows only at its end, and the batch must still be known unsent to be run again.) True if
    every write succeeded. If one raised (bad input, or a statement's error, which may show in
    a later write; the server then skips the COMMIT), the transaction is rolled back, every job
    cleared and False returned: `_one_by_one` runs them again, each in a savepoint of its own,
    so a failure is its own."""
    try:
        with driver.pipeline():
            driver.execute("BEGIN", prepare=False)
            started: set[int] = set()
            steps: list[Callable[[], Any]] = []
            for job in batch:
                if isinstance(job.work, Staged) and job.chat_id not in started:
                    started.add(job.chat_id)
                    steps.append(job.work.start(connection))
                else:
                    steps.append(partial(job.work, connection))
            for job, step in zip(batch, steps, strict=True):
                job.result = step()
            if started:  # the server has answered this batch: a link lost now, not before it
                commit()
        return True
    except Exception:
        if driver.closed:  # lost: `PgBatches._run` decides
            raise
        driver.execute("ROLLBACK", prepare=False)
        for job in batch:
            job.result = job.error = None
        return False


def _one_by_one(driver: Any, connection: Connection, batch: list[_ChatJob[Any]]) -> None:
    """The batch again, each write pipelined and synced at its end, so the error of its queued
    statements is its own, not the next write's: a failing write is rolled back alone."""
    for n, job in enumerate(batch):
        try:
            with driver.pipeline():  # its end waits for the write's last result
                if n == 0:
                    driver.execute("BEGIN", prepare=False)
                driver.execute("SAVEPOINT job", prepare=False)
                job.result = job.work(connection)
                driver.execute("RELEASE job", prepare=False)
        except Exception as err:
            job.result, job.error = None, err
            driver.execute("ROLLBACK TO job", prepare=False)  # fails if the link is lost
            driver.execute("RELEASE job", prepare=False)


def group_commit(engine: Engine) -> GroupCommit | None:
    """Group commit on the event loop where it pays: SQLite."""
    return GroupCommit(engine) if engine.dialect.name == "sqlite" else None


def pg_batches(engine: Engine) -> PgBatches | None:
    """Batched writes on PostgreSQL."""
    return PgBatches(engine) if engine.dialect.name == "postgresql" else None
