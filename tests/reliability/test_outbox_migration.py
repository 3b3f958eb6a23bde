"""Revision 0010 (the outbox) on a database with data: the ledger stays as it was, and the new
outbox takes, hands out (once) and marks calls at once."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest

from storage.db import make_engine
from storage.gateway import outbox as book
from storage.migrate import upgrade
from storage.unit_of_work import UnitOfWork
from tests.conftest import fresh_pg_database
from tests.reliability.test_migrations import (
    CHAT_ID,
    balances,
    check_the_bot_works,
    schema_drift,
    seeder_for,
)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/old.sqlite3"
        return
    with fresh_pg_database("jifen_outbox") as url:
        yield url


def test_upgrade_to_the_outbox_keeps_the_data_and_the_outbox_works(empty_url: str) -> None:
    engine = make_engine(empty_url)
    try:
        upgrade(engine, "0004")
        with engine.begin() as conn:
            seeded = seeder_for("0004")(conn)
        upgrade(engine, "head")
        assert schema_drift(engine) == []
        assert balances(engine, CHAT_ID) == seeded.balances
        call = {"params": {"text": "hi"}, "files": {}}
        calls = [(CHAT_ID, "sendMessage", call), (None, "answerCallbackQuery", {})]
        lease = timedelta(minutes=2)
        with UnitOfWork(engine).transaction() as db:  # a sender that died at once
            written = book.add(db, 77, calls, holder=1, lease=timedelta(0))
            assert book.add(db, 77, calls[:1], holder=1, lease=lease) == []  # not again
        with UnitOfWork(engine).transaction() as db:
            claimed = book.claim(db, holder=2, lease=lease, limit=10)
        assert [r.id for r in claimed] == [r.id for r in written]
        with UnitOfWork(engine).transaction() as db:
            assert book.claim(db, holder=3, lease=lease, limit=10) == []  # held by the first
        assert [(r.chat_id, r.method, book.payload(r)) for r in claimed] == [
            (CHAT_ID, "sendMessage", call),
            (None, "answerCallbackQuery", {}),
        ]
        with UnitOfWork(engine).transaction() as db:
            book.done(db, [(claimed[0].id, None)])
            book.release(db, [claimed[1].id])
        with UnitOfWork(engine).transaction() as db:
            assert [r.id for r in book.claim(db, holder=3, lease=lease, limit=10)] == [
                claimed[1].id
            ]
            assert book.unsent(db) == 1
        check_the_bot_works(engine, seeded)
    finally:
        engine.dispose()
