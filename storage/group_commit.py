"""Write transactions: one per write, or group commit for the bot on SQLite.

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
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import OperationalError

from storage.db import BUSY_TIMEOUT_MS, writer

T = TypeVar("T")
Work = Callable[[Connection], T]
_OPEN = (2, 3)  # libpq's PQTRANS_INTRANS, PQTRANS_INERROR: a transaction is open


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
        if driver.pgconn.transaction_status in _OPEN:  # `work` failed: nothing of it stays
            driver.execute("ROLLBACK")
        if not driver.closed:
            driver.autocommit = False


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


class GroupCommit:
    """Writes from the event loop, batched into shared transactions (SQLite)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = writer(engine)
        self._pending: list[_Job[Any]] = []
        self._drain: asyncio.Task[None] | None = None
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

    def close(self) -> None:
        """Give the queue's connection back (when the bot stops)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    async def submit(self, work: Work[T]) -> T:
        """Run `work` in the next batch; returns once that batch is committed."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._pending.append(_Job(work, future))
        if self._drain is None:
            self._drain = loop.create_task(self._drain_pending())
        return await future

    async def _drain_pending(self) -> None:
        try:
            while self._pending:
                batch, self._pending = self._pending, []
                await self._commit(batch)
        finally:
            self._drain = None

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


def group_commit(engine: Engine) -> GroupCommit | None:
    """Group commit where it pays: SQLite. PostgreSQL takes concurrent transactions itself."""
    return GroupCommit(engine) if engine.dialect.name == "sqlite" else None
