"""Issue 42, point 1 through the real PTB Application, updates shaped as Telegram sends them, on
both databases: /fee's reply, its Undo button, /history, /settle money and the night's card
caption with the fee as its own line, and the CSV."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from tests.conftest import fresh_pg_database, migrated
from tests.emulator.api import FakeBotApi
from tests.integration.test_bot import (
    ANN,
    BOB,
    CAT,
    FORUM,
    GROUP,
    PLAYERS,
    ZHANG,
    Harness,
    running,
    undo_button,
)


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def own_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Engine]:
    """A migrated engine on each backend, a database of its own (the bot's chats are fixed)."""
    if request.param == "sqlite":
        with migrated(f"sqlite:///{tmp_path}/jifen.sqlite3") as engine:
            yield engine
        return
    with fresh_pg_database("jifen_fees") as url, migrated(url) as engine:
        yield engine


@pytest.fixture
async def both(own_engine: Engine) -> AsyncIterator[Harness]:
    """The harness of `tests.integration.test_bot`, on SQLite and on PostgreSQL."""
    engine = own_engine
    api = FakeBotApi()
    for chat in (GROUP, FORUM):
        api.add_chat(chat)
        for user in (*PLAYERS, ZHANG):
            api.set_member(chat.id, user, "member")
    api.set_member(GROUP.id, ANN, "creator")
    async with running(api, engine) as app:
        yield Harness(api, app)


async def test_a_fee_through_the_bot(both: Harness) -> None:
    bot = both
    await bot.seat("mahjong")  # Ann, Bob, Cat, Dan
    await bot.say(ANN, "/hu Ann zimo")  # Ann +9
    entries = await bot.say(BOB, "/fee 100 台费 paid Bob")
    text = entries[0].plain_text
    assert "Fee #2: 台费 100" in text and "Bob paid it" in text
    assert "Ann → Bob 25" in text and "In money: Ann -25 · Bob +75" in text
    entries = await bot.say(CAT, "/fee 10 茶水 Ann Bob Cat")
    assert "Ann pay one cent more" in entries[0].plain_text  # 3.34, 3.33, 3.33
    assert "to the house" in entries[0].plain_text
    entry, data = undo_button(entries)
    after = await bot.press(CAT, entry, data)
    assert any("Undone: fee #3 (茶水)" in e.plain_text for e in after)
    history = await bot.text(ANN, "/history")
    assert "#2" in history and "Bob → Ann 25" not in history and "Ann → Bob 25" in history
    money = await bot.text(ANN, "/settle money")
    assert "Ann → Bob 25" in money  # Ann won 9 points, but no stake yet: fees only
    assert "Cat → Bob 25" in money and "台费" in money and "茶水" not in money
    said = await bot.text(ANN, "/set stake 1")
    assert "Stake: 1 per point" in said, said
    money = await bot.text(ANN, "/settle money")
    assert "Ann → Bob 16" in money and "Cat → Bob 28" in money and "Dan → Bob 28" in money
    [photo] = [e for e in await bot.say(BOB, "/summary") if e.media_kind == "photo"]
    paid = [line for line in money.splitlines() if "→" in line]
    assert [line for line in photo.plain_text.splitlines() if "→" in line] == paid
    standings = await bot.text(ANN, "/standings")
    assert "台费" not in standings and "Bob -3" in standings
