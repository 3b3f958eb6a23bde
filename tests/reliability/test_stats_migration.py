"""Revision 0007 fills the kept /stats of existing seasons from their ledger: on a database with
data (two seasons, both games, a marathon, free rounds of two named games, transfers at mahjong
and free tables, undone hands, rounds and transfers), the filled tables say what the service
had kept as they were recorded and undone, and /stats answers the same."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine

from service import insight
from service.requests import Stats
from storage.db import make_engine
from storage.migrate import downgrade, upgrade
from storage.unit_of_work import reading
from tests.integration.helpers import Chat
from tests.reliability.test_migrations import empty_url  # noqa: F401  (the fixture)

CHAT_ID = -4_005_001
P4 = ("老王", "Li", "Zhang", "Chen")
KEPT = {
    "stat_player": "SELECT season_id, unit, player_id, hands, wins, self_draws, deal_ins,"
    " first_out, results FROM stat_player WHERE hands <> 0 OR wins <> 0 OR results <> 0",
    "stat_win": "SELECT season_id, unit, player_id, value, times FROM stat_win WHERE times <> 0",
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
    chat.say("Li", "/pay Chen Li 15")
    chat.seat("free 斗地主", "老王", "Li", "Zhang")
    for line in (
        "/s 老王+30 Li-10 Zhang",
        "/s Li+2.5 老王-2.5",
        "/s Zhang+12 Li",
        "/undo",
        "/pay Zhang 老王 4.5",
        "/s 老王+30 Zhang-30",
        "/pay Li Zhang 1",
        "/undo",
    ):
        chat.say("Li", line)
    chat.say("老王", "/reset confirm")
    chat.seat("free poker", "A", "B")
    chat.say("A", "/s A+7 B")
    chat.seat("510k3 marathon", "A", "B", "C")
    for _ in range(9):
        chat.say("A", "/r A=50 B=30 C=20 out A B")
    chat.seat("mahjong", *P4)
    chat.say("Li", "/hu Li zimo")
    chat.say("Li", "/pay Li 老王 8")


def kept(engine: Engine) -> dict[str, list[tuple[Any, ...]]]:
    with engine.connect() as conn:
        return {
            table: sorted(tuple(row) for row in conn.execute(text(sql)).fetchall())
            for table, sql in KEPT.items()
        }


def stats(engine: Engine) -> list[Any]:
    with reading(engine) as db:
        return [insight.stats(db, CHAT_ID, Stats(season=n)) for n in (1, 2)]


def down_and_up(
    engine: Engine, revision: str, dropped: str, *reads: tuple[Callable[[Engine], Any], Any]
) -> None:
    """Down to `revision` (table `dropped` is gone), then up to head again: each read of
    `reads` answers what it answered before (what the revision's upgrade filled from the ledger
    is what the service had written)."""
    downgrade(engine, revision)
    with engine.connect() as conn:
        assert dropped not in engine.dialect.get_table_names(conn)
    upgrade(engine, "head")
    for read, before in reads:
        assert read(engine) == before


def test_0007_fills_what_the_service_keeps(empty_url: str) -> None:  # noqa: F811
    engine = make_engine(empty_url)
    try:
        upgrade(engine, "head")
        play(engine)
        as_recorded, answers = kept(engine), stats(engine)
        assert as_recorded["stat_hands"] and as_recorded["stat_win"] and as_recorded["stat_pair"]
        units = {row[1] for row in as_recorded["stat_hands"]}
        assert {"free:斗地主", "free:poker"} <= units
        assert {row[1] for row in as_recorded["stat_win"]} >= {"mahjong", "free:斗地主"}
        first, second = answers
        (section,) = first.free
        assert (section.unit, section.rounds) == ("free:斗地主", 3)
        lines = {line.name: line for line in section.lines}
        assert (lines["老王"].rounds, lines["老王"].wins, lines["老王"].biggest) == (3, 2, 30)
        assert lines["老王"].net == 30 - 2.5 + 30 + Fraction(9, 2)
        assert [s.unit for s in second.free] == ["free:poker"]
        # The tables go, the ledger stays (hands numbered chat-wide).
        down_and_up(engine, "0006", "stat_player", (kept, as_recorded), (stats, answers))
    finally:
        engine.dispose()
