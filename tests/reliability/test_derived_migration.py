"""Revision 0022 drops what the write path kept beside the ledger (stat_*, balance_mark,
rating_sitting). Its downgrade makes those tables again and fills them from the ledger with the
frozen fills of revisions 0007, 0013 and 0017: on a database with data (two seasons, mahjong,
510K and a marathon, free rounds, kongs, transfers, undone hands, rounds and transfers), the
counters, hand counts and mates filled at 0021 are what /stats and /me count now
(`service.tally`), every season has its marks, and upgraded again every view answers as before."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from service import insight, rating, tally
from service.requests import Chart, Stats
from storage.db import make_engine
from storage.gateway import chats
from storage.migrate import downgrade, upgrade
from storage.unit_of_work import reading
from tests.integration.helpers import Chat
from tests.reliability.test_migrations import empty_url  # noqa: F401  (the fixture)

pytestmark = pytest.mark.slow
CHAT_ID = -4_005_001
P4 = ("老王", "Li", "Zhang", "Chen")
DROPPED = ("stat_player", "stat_win", "stat_pair", "stat_hands", "stat_mate", "balance_mark")


def play(engine: Engine) -> None:
    """Sixty events in season 1 (mahjong, 510K, a free game; kongs, undos, transfers), then
    twenty-four in season 2: a mark every twenty holds each unit."""
    chat = Chat(engine, CHAT_ID, admins=("老王",))
    chat.say("老王", "/set rating on")
    for _ in range(3):
        chat.seat("mahjong", *P4)
        for line in ("/hu 老王 zimo qys pph", "/gang Li an", "/hu 2 pao 3", "/hu Chen zimo"):
            chat.say("Li", line)
        for line in ("/undo", "/hu 老王 pao Li pph feng Zhang", "/liuju", "/pay Chen Li 15"):
            chat.say("Li", line)
        chat.seat("510k", *P4)
        for line in ("/r 1=25 2=35 3=20 4=0/20 out 2 1 3", "/r 1=50 2=30 3=10 4=0/10 out 1 3"):
            chat.say("Li", line)
        chat.say("Li", "/undo")
        chat.say("Li", "/pay Chen Li 15")
        chat.seat("free 斗地主", "老王", "Li", "Zhang")
        for line in ("/s 老王+30 Li-10 Zhang", "/s Li+2.5 老王-2.5", "/s Zhang+12 Li", "/undo"):
            chat.say("Li", line)
        for line in ("/pay Zhang 老王 4.5", "/s 老王+30 Zhang-30", "/pay Li Zhang 1", "/undo"):
            chat.say("Li", line)
    chat.say("老王", "/reset confirm")
    for _ in range(2):
        chat.seat("free poker", "A", "B")
        chat.say("A", "/s A+7 B")
        chat.seat("510k3 marathon", "A", "B", "C")
        for _ in range(9):
            chat.say("A", "/r A=50 B=30 C=20 out A B")
        chat.seat("mahjong", *P4)
        chat.say("Li", "/hu Li zimo")
        chat.say("Li", "/pay Li 老王 8")


def views(engine: Engine) -> list[Any]:
    with reading(engine) as db:
        return [
            *(insight.stats(db, CHAT_ID, Stats(season=n)) for n in (1, 2)),
            *(insight.chart_data(db, CHAT_ID, Chart(season=n)) for n in (1, 2)),
            rating.rating_view(db, CHAT_ID),
            chats.seasons_with_hands(db, CHAT_ID),
        ]


def rows(engine: Engine, sql: str) -> list[tuple[Any, ...]]:
    with engine.connect() as conn:
        return sorted(tuple(row) for row in conn.execute(text(sql)).fetchall())


def test_0022_drops_the_kept_and_its_downgrade_fills_them_from_the_ledger(
    empty_url: str,  # noqa: F811
) -> None:
    engine = make_engine(empty_url)
    try:
        upgrade(engine, "head")
        play(engine)
        with engine.connect() as conn:
            assert not set(DROPPED) & set(engine.dialect.get_table_names(conn))
        answers = views(engine)
        with reading(engine) as db:
            seasons = [s.id for s, _ in chats.seasons_with_hands(db, CHAT_ID)]
            counted = tally.seasons(db, seasons)
        downgrade(engine, "0021_records")
        players = rows(
            engine,
            "SELECT season_id, unit, player_id, hands, wins, self_draws, deal_ins, first_out,"
            " results FROM stat_player",
        )
        assert players == sorted(
            (s, unit, pid, *counts.values())
            for s, found in counted.items()
            for (unit, pid), counts in found.counts.items()
        )
        hands = rows(engine, "SELECT season_id, unit, live, undone FROM stat_hands")
        assert hands == sorted(
            (s, unit, *n) for s, found in counted.items() for unit, n in found.hands.items()
        )
        mates = rows(engine, "SELECT season_id, player_id, mate_id, hands FROM stat_mate")
        assert mates == sorted(
            (s, a, b, n) for s, found in counted.items() for (a, b), n in found.mates.items()
        )
        wins = rows(engine, "SELECT season_id, unit, player_id, value, times FROM stat_win")
        assert sorted((s, u, p, Fraction(v), t) for s, u, p, v, t in wins) == sorted(
            (s, u, p, v, t)
            for s, found in counted.items()
            for (u, p), values in found.wins.items()
            for v, t in values.items()
        )
        marked = {row[0] for row in rows(engine, "SELECT DISTINCT season_id FROM balance_mark")}
        assert marked == set(seasons)
        assert rows(engine, "SELECT * FROM rating_sitting") == []
        upgrade(engine, "head")
        assert views(engine) == answers
    finally:
        engine.dispose()
