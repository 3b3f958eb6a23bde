"""PostgreSQL: the writes of a `Sql.folded` block go as one statement, and give what the
statements one by one would have given (`storage.sql`)."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import event
from sqlalchemy.engine import Connection, Engine

from storage.db import make_engine
from storage.sql import Sql
from tests.integration.helpers import Chat, trace

pytestmark = pytest.mark.postgres

TABLES = ("t_a", "t_b", "t_c")
SCHEMA = (
    *(f"CREATE TABLE {t} (id int PRIMARY KEY, n int NOT NULL)" for t in TABLES),
    "CREATE TABLE t_log (id serial PRIMARY KEY, n bigint NOT NULL)",
)
table = st.sampled_from(TABLES)
key = st.integers(0, 3)
amount = st.integers(-5, 5)
step = st.one_of(
    st.tuples(st.just("add"), table, key, amount),
    st.tuples(st.just("scale"), table, amount),
    st.tuples(st.just("drop"), table, key),
    st.tuples(st.just("copy"), table, table),
    st.tuples(st.just("bump"), table),
    st.tuples(st.just("read"), table),
    st.tuples(st.just("log"), table),
)


def _do(db: Sql, op: tuple[Any, ...]) -> Any:
    """One step; what a read returns."""
    match op:
        case ("add", t, k, n):
            db.run(
                f"INSERT INTO {t} (id, n) VALUES (?, ?) ON CONFLICT (id) DO UPDATE"
                f" SET n = {t}.n + excluded.n",
                (k, n),
            )
        case ("scale", t, n):
            db.run(f"UPDATE {t} SET n = n * ?", (n,))
        case ("drop", t, k):
            db.run(f"DELETE FROM {t} WHERE id = ?", (k,))
        case ("copy", source, target):  # a write that reads another table
            db.run(f"UPDATE {target} SET n = n + (SELECT count(*) FROM {source})")
        case ("bump", t):  # a write of another shape: never held
            db.run(f"WITH one AS (SELECT 1 AS n) UPDATE {t} SET n = {t}.n + one.n FROM one")
        case ("read", t):
            return db.rows(f"SELECT id, n FROM {t} ORDER BY id")
        case ("log", t):  # a write whose result is read
            db.insert(f"INSERT INTO t_log (n) SELECT coalesce(sum(n), 0) FROM {t}", ())
    return None


@contextmanager
def _scratch(engine: Engine) -> Iterator[Connection]:
    """A connection in a transaction that makes the tables above, rolled back at the end."""
    with engine.connect() as conn:
        transaction = conn.begin()
        try:
            for ddl in SCHEMA:
                conn.exec_driver_sql(ddl)
            yield conn
        finally:
            transaction.rollback()


def _play(engine: Engine, ops: list[tuple[Any, ...]], fold: bool) -> tuple[list[Any], Any]:
    """The steps in a pipelined transaction: what each read saw, and the tables at the end."""
    with _scratch(engine) as conn:
        db = Sql(conn)
        with conn.connection.driver_connection.pipeline():  # type: ignore[union-attr]
            with db.folded() if fold else nullcontext():
                seen = [_do(db, op) for op in ops]
            end = [db.rows(f"SELECT id, n FROM {t} ORDER BY id") for t in TABLES]
            end.append(db.rows("SELECT n FROM t_log ORDER BY id"))
        return seen, end


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=st.lists(step, max_size=12))
def test_folded_writes_give_what_one_by_one_gives(pg_engine: Engine, ops: list[Any]) -> None:
    """Any mix of writes and reads: every read, and the tables at the end, are the same
    whether the writes were held and folded or sent one by one."""
    assert _play(pg_engine, ops, fold=True) == _play(pg_engine, ops, fold=False)


@contextmanager
def _sent(conn: Connection) -> Iterator[list[str]]:
    """The statements the client sends meanwhile, as written (libpq's trace; nothing is
    prepared, so each one's text is sent)."""
    driver: Any = conn.connection.driver_connection
    driver.prepare_threshold = None
    texts: list[str] = []
    with tempfile.TemporaryFile("w+") as sink:
        trace(driver, sink)
        try:
            yield texts
        finally:
            driver.pgconn.untrace()
            sink.seek(0)
            texts.extend(_parsed(sink.read()))


def _parsed(trace: str) -> list[str]:
    """The text of each statement the client sent (its Parse message, or a plain Query)."""
    texts = []
    for line in trace.splitlines():
        direction, _size, message, *rest = line.split("\t")
        if direction == "F" and message in ("Parse", "Query"):
            texts.append(_STATEMENT[message].match(rest[0]).group(1))  # type: ignore[union-attr]
    return texts


_STATEMENT = {  # libpq's trace of the message: Parse `"<name>" "<text>" <types>…`, Query `"<text>"`
    "Parse": re.compile(r' "[^"]*" "(.*)" \d+'),
    "Query": re.compile(r' "(.*)"$'),
}


def test_the_writes_of_a_block_go_as_one_statement(pg_engine: Engine) -> None:
    """Writes of three tables and a read of a fourth: the read goes at once, the writes as one
    statement at the block's end; a write of a table already written first sends those held."""
    with _scratch(pg_engine) as conn:
        db = Sql(conn)
        with _sent(conn) as texts, db.folded():
            db.run("INSERT INTO t_a (id, n) VALUES (?, ?)", (1, 10))
            db.run("UPDATE t_b SET n = ?", (2,))
            assert db.rows("SELECT n FROM t_log") == []
            db.run("INSERT INTO t_c (id, n) VALUES (?, ?)", (1, 30))
            db.run("UPDATE t_a SET n = n + 1 WHERE id = ?", (1,))  # t_a again: sends those
        assert db.rows("SELECT n FROM t_a UNION ALL SELECT n FROM t_c ORDER BY n") == [(11,), (30,)]
    assert texts == [
        "SELECT n FROM t_log",
        "WITH w0 AS (INSERT INTO t_a (id, n) VALUES ($1, $2)), w1 AS (UPDATE t_b SET n = $3)"
        " INSERT INTO t_c (id, n) VALUES ($4, $5)",
        "UPDATE t_a SET n = n + 1 WHERE id = $1",
    ]


def test_a_block_that_raises_sends_none_of_its_writes(pg_engine: Engine) -> None:
    with _scratch(pg_engine) as conn:
        db = Sql(conn)
        with _sent(conn) as texts, pytest.raises(ValueError), db.folded():
            db.run("INSERT INTO t_a (id, n) VALUES (?, ?)", (1, 10))
            raise ValueError("a use case refuses")
        assert db.rows("SELECT n FROM t_a") == []
    assert texts == []


class _Traced:
    """Every connection an engine opens, traced: the statements each sends, as written."""

    def __init__(self, engine: Engine) -> None:
        self._sinks: list[Any] = []
        event.listen(engine, "connect", self._trace)

    def _trace(self, dbapi_connection: Any, _record: Any) -> None:
        sink = tempfile.TemporaryFile("w+")  # noqa: SIM115 (closed by `close`)
        self._sinks.append(sink)
        dbapi_connection.prepare_threshold = None
        trace(dbapi_connection, sink)

    def mark(self) -> list[int]:
        return [sink.seek(0, 2) for sink in self._sinks]

    def since(self, mark: list[int]) -> list[str]:
        texts = []
        for n, sink in enumerate(self._sinks):
            sink.seek(mark[n] if n < len(mark) else 0)
            texts += _parsed(sink.read())
        return texts

    def close(self) -> None:
        for sink in self._sinks:
            sink.close()


def test_a_recorded_hand_writes_in_one_statement(pg_url: str, chat_id: int) -> None:
    """Through the service: a hand locks its chat, reads, then sends all it writes (the event,
    the chat's counter, transfers, balances, stats, the update's claim) as one statement."""
    engine = make_engine(pg_url)
    traced = _Traced(engine)
    try:
        chat = Chat(engine, chat_id)
        chat.seat("mahjong", "Wang", "Li", "Zhang", "Chen")
        mark = traced.mark()
        chat.say("Wang", "/hu Wang zimo")
        texts = traced.since(mark)
    finally:
        engine.dispose()
        traced.close()
    texts = [text for text in texts if text != ";"]  # the pool's ping
    assert texts[0] == "BEGIN" and texts[-1] == "COMMIT"
    writes = [text for text in texts if text.split()[0] in ("INSERT", "UPDATE", "DELETE", "WITH")]
    lock, hand = writes
    assert lock.startswith("INSERT INTO chat ")
    tables = [t for t in re.findall(r"(?:INSERT INTO|UPDATE) (\w+)", hand) if t != "SET"]
    assert tables == [
        "event",
        "chat",
        "transfer",
        "balance",
        "stat_player",
        "stat_win",
        "stat_pair",
        "stat_hands",
        "processed_update",
    ]
