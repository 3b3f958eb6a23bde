"""`storage.group_commit._pipelined`'s end, on a stand-in for psycopg's connection: the states
a server restart leaves it in (seen in the soak: the error arrives at the pipeline's end, with
results still pending, and the connection is neither closed nor idle)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from storage.group_commit import _pipelined

IDLE, ACTIVE, INTRANS = 0, 1, 2  # libpq's PQTRANS_*


class ServerGone(Exception):
    """What psycopg raises for the server's "terminating connection" (AdminShutdown)."""


class Driver:
    """psycopg's connection as `_pipelined` uses it: its pipeline ends leaving `after`."""

    def __init__(self, after: int, fails: bool) -> None:
        self.pgconn = type("PGconn", (), {"transaction_status": IDLE})()
        self.closed = False
        self.executed: list[str] = []
        self._after, self.fails = after, fails
        self._autocommit = False

    @property
    def autocommit(self) -> bool:
        return self._autocommit

    @autocommit.setter
    def autocommit(self, value: bool) -> None:
        if self.pgconn.transaction_status != IDLE:  # as psycopg refuses it
            raise RuntimeError("can't change 'autocommit' now")
        self._autocommit = value

    @contextmanager
    def pipeline(self) -> Iterator[None]:
        yield
        self.pgconn.transaction_status = self._after
        if self.fails:
            raise ServerGone("terminating connection due to administrator command")

    def execute(self, sql: str) -> None:
        if self.pgconn.transaction_status == ACTIVE:
            raise RuntimeError("another command is already in progress")
        self.executed.append(sql)
        if sql == "ROLLBACK":
            self.pgconn.transaction_status = IDLE


class Connection:
    def __init__(self, driver: Driver) -> None:
        self.connection = type("Fairy", (), {"driver_connection": driver})()
        self.invalidated = False

    def invalidate(self) -> None:
        self.invalidated = True


def run(driver: Driver) -> Connection:
    """`_pipelined` on `driver`: it raises the server's error where the pipeline fails (and
    nothing else), and returns the connection it used."""
    connection = Connection(driver)
    try:
        _pipelined(connection, lambda conn: "done")  # type: ignore[arg-type]
    except ServerGone:
        assert driver.fails
    else:
        assert not driver.fails
    return connection


def test_a_connection_left_busy_by_a_server_gone_is_thrown_away() -> None:
    """The server's error is what the caller sees (not psycopg's refusal to reset the
    connection), and the connection does not go back to the pool."""
    assert run(Driver(after=ACTIVE, fails=True)).invalidated


def test_a_failed_write_is_rolled_back_and_its_connection_kept() -> None:
    driver = Driver(after=INTRANS, fails=True)
    connection = run(driver)
    assert driver.executed[-1] == "ROLLBACK"
    assert not connection.invalidated and driver.autocommit is False


def test_a_write_that_committed_keeps_its_connection() -> None:
    driver = Driver(after=IDLE, fails=False)
    connection = run(driver)
    assert driver.executed == ["BEGIN", "COMMIT"]
    assert not connection.invalidated and driver.autocommit is False


def test_a_lost_connection_is_thrown_away() -> None:
    driver = Driver(after=IDLE, fails=True)
    driver.closed = True
    assert run(driver).invalidated
