"""The outbox's claims, on SQLite and PostgreSQL: a sender keeps its own update's calls unless
their chat has calls waiting; a chat's later calls never go out while an earlier one is held;
a dead sender's calls are taken over at once (SQLite: by a new start; PostgreSQL: as soon as
its session, which holds its advisory lock, is gone), else when its lease runs out."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.engine import Connection, Engine

from storage.gateway import outbox as book
from storage.models import OutboxRow, outbox, utcnow
from storage.unit_of_work import UnitOfWork

LEASE = timedelta(minutes=1)
A, B = 101, 202  # two senders' numbers
X, Y = -7_001, -7_002  # two chats


def call(chat: int | None, text: str) -> tuple[int | None, str, dict[str, Any]]:
    return chat, "sendMessage", {"params": {"text": text}, "files": {}}


def write(engine: Engine, update_id: int, holder: int, *calls: Any) -> list[OutboxRow]:
    with UnitOfWork(engine).transaction() as db:
        return book.add(db, update_id, list(calls), holder=holder, lease=LEASE)


def claim(engine: Engine, holder: int) -> list[OutboxRow]:
    with UnitOfWork(engine).transaction() as db:
        return book.claim(db, holder=holder, lease=LEASE, limit=100)


def texts(rows: list[OutboxRow]) -> list[str]:
    return [book.payload(row)["params"]["text"] for row in rows]


def sent(engine: Engine, rows: list[OutboxRow]) -> None:
    with UnitOfWork(engine).transaction() as db:
        book.done(db, [(row.id, None) for row in rows])


def clean(engine: Engine) -> None:
    with UnitOfWork(engine).transaction() as db:
        db.execute(update(outbox).where(outbox.c.sent_at.is_(None)).values(sent_at=utcnow()))


@contextmanager
def alive(engine: Engine, holder: int) -> Iterator[Connection]:
    """A sender's session holding its lock (as `Presence` does), ended as a killed process's."""
    session = engine.connect()
    book.present(session, holder)
    session.commit()
    try:
        yield session
    finally:
        session.invalidate()
        session.close()


@pytest.fixture
def senders(engine: Engine) -> Iterator[None]:
    """On PostgreSQL, A and B alive (their sessions hold their locks) for the test."""
    if engine.dialect.name != "postgresql":
        yield
        return
    with alive(engine, A), alive(engine, B):
        yield


def test_a_sender_keeps_its_calls_unless_their_chat_waits(engine: Engine, senders: None) -> None:
    clean(engine)
    first = write(engine, 9_001, A, call(X, "x1"), call(None, "answer"))
    assert [row.claimed_by for row in first] == [A, A]  # A sends them itself
    assert claim(engine, B) == []  # nobody else takes them
    later = write(engine, 9_002, B, call(X, "x2"), call(Y, "y1"))  # at another worker
    assert {texts([r])[0]: r.claimed_by for r in later} == {"x2": None, "y1": B}
    assert claim(engine, B) == []  # x2 waits behind A's x1
    sent(engine, first)
    assert texts(claim(engine, B)) == ["x2"]  # then goes, in order


def test_a_chat_s_calls_go_out_in_order_whoever_claims(engine: Engine, senders: None) -> None:
    clean(engine)
    for n in range(3):  # left free: a chat with a call nobody holds (a crash's)
        write(engine, 9_100 + n, A, call(X, f"x{n}"))
    with UnitOfWork(engine).transaction() as db:  # as if A died holding them
        db.execute(update(outbox).where(outbox.c.claimed_by == A).values(claimed_until=utcnow()))
    taken = claim(engine, B)
    assert texts(taken) == ["x0", "x1", "x2"]  # oldest first, the whole chat
    assert claim(engine, A) == []


def test_claims_at_once_never_take_two_calls_of_one_chat(engine: Engine, senders: None) -> None:
    """A sender claims while another's claim is still open (not committed): the second waits
    for it (PostgreSQL: an advisory lock; SQLite: the one writer), then takes none of them."""
    clean(engine)
    for n in range(20):
        write(engine, 9_200 + n, A, call(X if n % 2 else Y, f"{n}"))
    with UnitOfWork(engine).transaction() as db:
        db.execute(
            update(outbox)
            .where(outbox.c.sent_at.is_(None))
            .values(claimed_by=None, claimed_until=None)
        )
    got: dict[int, list[OutboxRow]] = {}
    claimed, commit = threading.Event(), threading.Event()

    def first() -> None:
        with UnitOfWork(engine).transaction() as db:
            got[A] = book.claim(db, holder=A, lease=LEASE, limit=100)
            claimed.set()
            commit.wait(10)

    def second() -> None:
        claimed.wait(10)
        got[B] = claim(engine, B)

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    claimed.wait(10)
    time.sleep(0.3)  # the second claim is under way meanwhile
    commit.set()
    for thread in threads:
        thread.join()
    assert len(got[A]) == 20 and got[B] == []


def test_a_dead_sender_s_calls_are_taken_over(engine: Engine, senders: None) -> None:
    clean(engine)
    held = write(engine, 9_300, A, call(X, "x1"))
    assert claim(engine, B) == []  # A's lease runs
    with UnitOfWork(engine).transaction() as db:
        book.take_over(db, {B})  # a new start of the only process (SQLite)
    assert [row.id for row in claim(engine, B)] == [row.id for row in held]


def senders_alive(engine: Engine) -> set[int]:
    with UnitOfWork(engine).transaction() as db:
        return book.alive(db)


def claim_as_sender(engine: Engine, holder: int) -> list[OutboxRow]:
    """A claim as a PostgreSQL sender makes it: the dead senders' calls freed first."""
    with UnitOfWork(engine).transaction() as db:
        book.take_over(db, book.alive(db), leased_after=book.started(db) + LEASE)
        return book.claim(db, holder=holder, lease=LEASE, limit=100)


@pytest.mark.postgres
def test_on_postgres_a_dead_sender_s_calls_are_taken_over_at_once(pg_engine: Engine) -> None:
    clean(pg_engine)
    with alive(pg_engine, B):
        with alive(pg_engine, A):
            with UnitOfWork(pg_engine).transaction() as db:
                assert {A, B} <= book.alive(db)
            held = write(pg_engine, 9_400, A, call(X, "x1"), call(Y, "y1"))
            assert claim_as_sender(pg_engine, B) == []  # A lives: its lease (a minute) holds
            write(pg_engine, 9_401, B, call(X, "x2"))  # left free: x1 is A's
        deadline = time.monotonic() + 10  # A's process was killed: its server process ends
        while A in (living := senders_alive(pg_engine)) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert A not in living and B in living
        taken = claim_as_sender(pg_engine, B)  # at once, not when A's lease ends
        assert texts(taken) == ["x1", "y1", "x2"]
        assert [row.id for row in taken[:2]] == [row.id for row in held]
        assert {row.claimed_by for row in taken} == {B}


@pytest.mark.postgres
def test_on_postgres_a_sender_without_its_session_holds_nothing_it_writes(
    pg_engine: Engine,
) -> None:
    """A sender whose session was lost (a database restart) writes its calls free: another
    may send them, so it must not send them itself from memory."""
    clean(pg_engine)
    rows = write(pg_engine, 9_500, A, call(X, "x1"))
    assert [row.claimed_by for row in rows] == [None]
    with alive(pg_engine, A):
        assert [row.claimed_by for row in write(pg_engine, 9_501, A, call(Y, "y1"))] == [A]


@pytest.mark.postgres
def test_on_postgres_a_claim_from_before_the_server_started_keeps_its_lease(
    pg_engine: Engine,
) -> None:
    """After a restart no sender holds its lock yet: what was claimed before the server
    started stays with its sender (it may be sending it) until the lease ends; what was
    claimed since is a dead sender's."""
    clean(pg_engine)
    with alive(pg_engine, A):
        held = write(pg_engine, 9_600, A, call(X, "x1"))
    until = held[0].claimed_until
    assert until is not None
    with UnitOfWork(pg_engine).transaction() as db:  # the server started after the claim
        book.take_over(db, {B}, leased_after=until)
    assert claim(pg_engine, B) == []
    with UnitOfWork(pg_engine).transaction() as db:  # the server started before it
        book.take_over(db, {B}, leased_after=until - LEASE)
    assert texts(claim(pg_engine, B)) == ["x1"]


@pytest.mark.postgres
def test_on_postgres_a_sender_back_during_another_s_take_over_keeps_its_claim(
    pg_engine: Engine,
) -> None:
    """After a restart, B reads who is alive (not A yet); A takes its lock again and claims;
    then B frees the dead senders' calls and claims. Every call goes to one sender only: A's
    claim waits for B's transaction, which began with the list of the living."""
    clean(pg_engine)
    write(pg_engine, 9_700, A, call(X, "x1"), call(Y, "y1"))  # A has no session: left free
    got: dict[int, list[OutboxRow]] = {}
    listed, go_on = threading.Event(), threading.Event()

    def b_claims() -> None:
        with UnitOfWork(pg_engine).transaction() as db:
            living = book.alive(db)
            listed.set()
            go_on.wait(10)
            book.take_over(db, living, leased_after=book.started(db) + LEASE)
            got[B] = book.claim(db, holder=B, lease=LEASE, limit=100)

    def a_claims() -> None:
        got[A] = claim(pg_engine, A)

    with alive(pg_engine, B):
        b = threading.Thread(target=b_claims)
        b.start()
        assert listed.wait(10)
        with alive(pg_engine, A):  # A is back, after B's list
            a = threading.Thread(target=a_claims)
            a.start()
            a.join(0.5)  # A's claim is under way meanwhile
            go_on.set()
            b.join(10)
            a.join(10)
    assert sorted(texts(got[A] + got[B])) == ["x1", "y1"]  # none twice
