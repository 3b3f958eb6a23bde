"""Write transactions, and group commit for SQLite.

SQLite lets one writer in at a time and every commit waits for the disk (an fsync, 0.2–5 ms
here): threads that each commit alone queue behind each other's fsync, and a waiting writer
sleeps in SQLite's busy handler (1 ms and more) instead of being woken. So in one process the
writes of concurrent updates share a transaction: the first thread to find the write lock free
runs every write queued by then, each in its own savepoint (a failing one is rolled back alone),
and commits once. Each caller returns only after that commit: nothing is acknowledged before it
is on disk. PostgreSQL takes concurrent transactions itself, one per write.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from sqlalchemy.engine import Connection, Engine

from storage.db import writer

T = TypeVar("T")
Work = Callable[[Connection], T]


class Transactions:
    """Runs a write in a transaction of its own (PostgreSQL)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = writer(engine)

    def run(self, work: Work[T]) -> T:
        with self._engine.begin() as connection:
            return work(connection)


class _Job(Generic[T]):
    __slots__ = ("error", "finished", "result", "work")

    def __init__(self, work: Work[T]) -> None:
        self.work = work
        self.result: T | None = None
        self.error: BaseException | None = None
        self.finished = False

    def outcome(self) -> T:
        if self.error is not None:
            raise self.error
        return self.result  # type: ignore[return-value]


class GroupCommit(Transactions):
    """Runs a write in a savepoint of a transaction shared with the writes queued meanwhile."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self._queue: list[_Job[Any]] = []
        self._queue_lock = threading.Lock()
        self._leader = threading.Lock()  # held while a batch runs and commits

    def run(self, work: Work[T]) -> T:
        job = _Job(work)
        with self._queue_lock:
            self._queue.append(job)
        with self._leader:
            if not job.finished:  # else the previous leader's batch took it
                with self._queue_lock:
                    batch, self._queue = self._queue, []
                self._commit(batch)
        return job.outcome()

    def _commit(self, batch: list[_Job[Any]]) -> None:
        try:
            with self._engine.begin() as connection:
                driver = connection.connection.driver_connection
                assert driver is not None
                for job in batch:
                    driver.execute("SAVEPOINT job")
                    try:
                        job.result = job.work(connection)
                    except Exception as err:
                        job.error = err
                        driver.execute("ROLLBACK TO job")
                    driver.execute("RELEASE job")
        except BaseException as err:  # the commit failed: nothing of the batch was written
            for job in batch:
                job.result, job.error = None, job.error or err
            if not isinstance(err, Exception):
                raise
        finally:
            for job in batch:
                job.finished = True


def transactions(engine: Engine) -> Transactions:
    """Group commit on SQLite, a transaction per write elsewhere."""
    return GroupCommit(engine) if engine.dialect.name == "sqlite" else Transactions(engine)
