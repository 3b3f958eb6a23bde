"""Revision 0005 on a database with data: every chat gets the time zone UTC (what
its times were shown in so far), nothing else changes, and /set tz works on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from storage.db import make_engine
from storage.migrate import upgrade
from tests.conftest import fresh_pg_database
from tests.emulator.api import Chat, User
from tests.reliability.harness import describe, make_bot
from tests.reliability.test_migrations import CHAT_ID, balances, schema_drift, seed_0001


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def old_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/old.sqlite3"
        return
    with fresh_pg_database("jifen_tz") as url:
        yield url


def test_chats_get_utc_and_can_set_their_zone(old_url: str) -> None:
    engine = make_engine(old_url)
    try:
        upgrade(engine, "0004")
        with engine.begin() as conn:
            seeded = seed_0001(conn)
        upgrade(engine, "head")
        assert schema_drift(engine) == []
        assert balances(engine, CHAT_ID) == seeded.balances
        with engine.connect() as conn:
            zones = conn.execute(text("SELECT DISTINCT tz FROM chat")).scalars().all()
        assert zones == ["UTC"]
        bots = make_bot(engine)
        bot = next(bots)
        try:
            chat = Chat(CHAT_ID, "supergroup", title="old")
            bot.api.add_chat(chat)
            ann = User(900_000, "Ann", username="ann", language_code="en")
            bot.api.set_member(chat.id, ann, "creator")

            def say(message: str) -> str:
                outcome = bot.say(ann, message, chat)
                assert not outcome.errors, f"{message}: {describe(outcome.errors)}"
                return "\n".join(outcome.texts)

            assert "(times: UTC)" in say("/history")
            assert "Asia/Shanghai" in say("/set tz Asia/Shanghai")
            assert "(times: Asia/Shanghai, UTC+08:00)" in say("/history")
        finally:
            bots.close()
        assert balances(engine, CHAT_ID) == seeded.balances
    finally:
        engine.dispose()
