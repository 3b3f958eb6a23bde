"""Revision 0005 fills the kept /stats of existing seasons from their ledger: on a database with
data (two seasons, both games, a marathon, undone hands), the filled tables say what the
service had kept as the hands were recorded and undone, and /stats answers the same."""

from __future__ import annotations

from typing import Any

from alembic import command
from sqlalchemy import text
from sqlalchemy.engine import Engine

from service import insight
from service.requests import Stats
from storage.db import make_engine, read_transaction
from storage.migrate import alembic_config, upgrade
from tests.integration.helpers import Chat
from tests.reliability.test_migrations import empty_url  # noqa: F401  (the fixture)

CHAT_ID = -4_005_001
P4 = ("老王", "Li", "Zhang", "Chen")
KEPT = {
    "stat_player": "SELECT season_id, unit, player_id, hands, wins, self_draws, deal_ins,"
    " first_out, results FROM stat_player WHERE hands <> 0 OR wins <> 0 OR results <> 0",
    "stat_win": "SELECT season_id, player_id, value, times FROM stat_win WHERE times <> 0",
    "stat_pair": "SELECT season_id, payer_id, payee_id, value, times FROM stat_pair"
    " WHERE times <> 0",
    "stat_hands": "SELECT season_id, unit, live, undone FROM stat_hands",
}


def play(engine: Engine) -> None:
    chat = Chat(engine, CHAT_ID, admins=("老王",))
    chat.seat("mahjong", *P4)
    for line in (
        "/hu 老王 zimo qys pph",
        "/gang Li an",
        "/hu 2 pao 3",
        "/hu 老王 pao Li pph feng Zhang",
        "/hu Li pao Chen; Zhang pao Chen qys",
        "/hu Chen zimo",
        "/undo",
        "/liuju",
    ):
        chat.say("Li", line)
    chat.seat("510k", *P4)
    chat.say("Li", "/r 1=25 2=35 3=20 4=0/20 out 2 1 3")
    chat.say("Li", "/r 1=50 2=30 3=10 4=0/10 out 1 3")
    chat.say("Li", "/undo")
    chat.say("老王", "/reset confirm")
    chat.seat("510k3 marathon", "A", "B", "C")
    for _ in range(9):
        chat.say("A", "/r A=50 B=30 C=20 out A B")
    chat.seat("mahjong", *P4)
    chat.say("Li", "/hu Li zimo")


def kept(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as conn:
        return {
            table: sorted(tuple(row) for row in conn.execute(text(sql)).fetchall())
            for table, sql in KEPT.items()
        }


def stats(engine: Engine) -> list[Any]:
    with read_transaction(engine) as db:
        return [insight.stats(db, CHAT_ID, Stats(season=n)) for n in (1, 2)]


def test_0007_fills_what_the_service_keeps(empty_url: str) -> None:  # noqa: F811
    engine = make_engine(empty_url)
    try:
        upgrade(engine, "head")
        play(engine)
        as_recorded, answers = kept(engine), stats(engine)
        assert as_recorded["stat_hands"] and as_recorded["stat_win"] and as_recorded["stat_pair"]
        command.downgrade(alembic_config(engine), "0006")  # the tables go, the ledger stays
        with engine.connect() as conn:
            assert "stat_player" not in engine.dialect.get_table_names(conn)
        upgrade(engine, "head")
        assert kept(engine) == as_recorded
        assert stats(engine) == answers
    finally:
        engine.dispose()
