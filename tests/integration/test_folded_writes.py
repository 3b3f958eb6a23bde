"""The write path's folded statements, on SQLite and PostgreSQL: a hand's rows go in one
statement per table, the prologue reads the season and the update's claim at once, and a
PostgreSQL write is one pipeline. Each gives what the statements it replaced gave, and a
write stays all or nothing."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy.engine import Connection, Engine

from storage.db import read_transaction, write_transaction
from storage.gateway import chat_move, chats, stats, tables
from storage.gateway import ledger as book
from storage.gateway import players as gateway_players
from storage.group_commit import Transactions
from storage.rows import TransferRow
from storage.sql import Sql
from tests.integration.helpers import Chat

P4 = ("Wang", "Li", "Zhang", "Chen")


def _season_and_players(engine: Engine, chat_id: int) -> tuple[int, list[int]]:
    with read_transaction(engine) as db:
        season = chats.current_season(db, chat_id)
        assert season is not None
        ids = [
            pid
            for pid, _unit, _amount in db.rows(
                "SELECT player_id, unit, amount FROM balance WHERE season_id = ?"
                " ORDER BY player_id",
                (season.id,),
            )
        ]
    return season.id, ids


def test_a_hand_s_rows_add_up_as_one_statement_each(engine: Engine, chat_id: int) -> None:
    """Transfers, balances and the kept stats of a hand written one statement per table: two
    equal wins of one player count twice (PostgreSQL updates a row once a statement)."""
    chat = Chat(engine, chat_id)
    chat.seat("mahjong", *P4)
    chat.say("Wang", "/hu Wang zimo")  # 3 each: Wang +9
    season_id, (a, b, c, d) = _season_and_players(engine, chat_id)
    data: dict[str, Any] = {
        "seats": [a, b, c, d],
        "wins": [
            {"winner": a, "discarder": b, "value": {"how": "dianpao"}},
            {"winner": a, "discarder": c, "value": {"how": "dianpao"}},
        ],
    }
    transfers = [
        TransferRow(season_id, "mahjong", b, a, 4, "win", {}),
        TransferRow(season_id, "mahjong", c, a, Fraction(7, 2), "win", {}),
        TransferRow(season_id, "mahjong", d, c, Fraction(1, 2), "win", {}),
    ]
    with write_transaction(engine) as db:
        before = stats.season_stats(db, season_id)
        event = db.row("SELECT max(id) FROM event WHERE season_id = ?", (season_id,))
        assert event is not None
        book.add_transfers(
            db, event[0], transfers, season_id=season_id, unit="mahjong", seated=(a, b, c, d)
        )
        stats.count_hand(db, season_id, "mahjong", data, transfers)
        after = stats.season_stats(db, season_id)
        kept = {
            pid: Fraction(amount)
            for pid, _unit, amount in db.rows(
                "SELECT player_id, unit, amount FROM balance WHERE season_id = ?", (season_id,)
            )
        }
    assert kept == {a: 9 + Fraction(15, 2), b: -3 - 4, c: -3 - 3, d: -3 - Fraction(1, 2)}
    assert after.counts[("mahjong", a)]["wins"] == before.counts[("mahjong", a)]["wins"] + 2
    added = dict(after.wins[("mahjong", a)])
    assert added[Fraction(15, 2)] == 2  # both wins are worth his net: one row, times 2
    assert after.pairs[(b, a)] == before.pairs.get((b, a), 0) + 4
    assert after.pairs[(d, c)] == Fraction(1, 2)
    assert after.hands["mahjong"] == (before.hands["mahjong"][0] + 1, 0)


def test_the_prologue_finds_the_season_the_claim_and_the_table(
    engine: Engine, chat_id: int
) -> None:
    update = 7_000_000_000 + chat_id
    with write_transaction(engine) as db:
        chats.lock_chat(db, chat_id)
        first, claim, table = chats.prologue(db, chat_id, 0, None)  # no season yet: opened
        assert first.number == 1 and claim is None and table is None
        again, claim, _ = chats.prologue(db, chat_id, 0, update)
        assert again.id == first.id and claim is None
        chats.claim_update(db, update, chat_id, None)
        _, claim, _ = chats.prologue(db, chat_id, 0, update)
        assert claim == (None,)  # processed, no event recorded
        assert chats.prologue(db, chat_id, 0, None)[1] is None
    Chat(engine, chat_id).seat("510k3 marathon", "A", "B", "C")
    with write_transaction(engine) as db:
        _, _, table = chats.prologue(db, chat_id, 0, None)
        assert table is not None and table == tables.open_table(db, chat_id, 0)
        assert table.marathon and len(table.seats) == 3
        assert chats.prologue(db, chat_id, 77, None)[2] is None  # another topic: none open


def test_the_write_reads_the_chat_with_the_prologue(engine: Engine, chat_id: int) -> None:
    """SQLite reads the chat's row in the prologue's statement; a chat without a row yet is
    created (`lock_followed`) first, on both databases. Each gives what the two steps give."""
    update = 7_100_000_000 + chat_id
    with write_transaction(engine) as db:
        if not db.pg:
            assert chats.prologue_with_chat(db, chat_id, 0, update) is None  # no row yet
        chat, season, claim, table = chat_move.lock_with_prologue(db, chat_id, 0, update)
        assert chat == chats.get_chat(db, chat_id)
        assert season == chats.current_season(db, chat_id) and season.number == 1
        assert claim is None and table is None
        chats.claim_update(db, update, chat_id, None)
    Chat(engine, chat_id).seat("510k3 marathon", "A", "B", "C")
    with write_transaction(engine) as db:
        again = chat_move.lock_with_prologue(db, chat_id, 0, update)
        assert again == (chats.lock_chat(db, chat_id), *chats.prologue(db, chat_id, 0, update))
        assert again[2] == (None,) and again[3] is not None
        if not db.pg:
            assert chats.prologue_with_chat(db, chat_id, 0, update) == again


def _claims(engine: Engine, chat_id: int) -> int:
    with read_transaction(engine) as db:
        row = db.row("SELECT count(*) FROM processed_update WHERE chat_id = ?", (chat_id,))
    assert row is not None
    return int(row[0])


def test_a_write_is_all_or_nothing(engine: Engine, chat_id: int) -> None:
    """Queued writes (PostgreSQL's pipeline) are undone with a failing write: a statement that
    fails after them, or an error of the use case; the connection serves the next write."""
    Chat(engine, chat_id).seat("mahjong", *P4)
    transactions = Transactions(engine)
    update = 8_000_000_000 + chat_id

    def claim_twice(conn: Connection) -> None:
        db = Sql(conn)
        chats.claim_update(db, update, chat_id, None)
        chats.claim_update(db, update, chat_id, None)  # the same update: refused

    def claim_then_fail(conn: Connection) -> None:
        chats.claim_update(Sql(conn), update, chat_id, None)
        raise RuntimeError("the use case failed")

    before = _claims(engine, chat_id)
    with pytest.raises(Exception, match=r"(?i)unique|duplicate"):
        transactions.run(claim_twice)
    assert _claims(engine, chat_id) == before
    with pytest.raises(RuntimeError):
        transactions.run(claim_then_fail)
    assert _claims(engine, chat_id) == before
    transactions.run(lambda conn: chats.claim_update(Sql(conn), update, chat_id, None))
    assert _claims(engine, chat_id) == before + 1


def test_players_are_read_with_their_balances(engine: Engine, chat_id: int) -> None:
    """What a hand reads before it writes, in one statement: the seated players in seat order
    and their balances (None: no row yet); its transfers add to those, and the balances after
    are what is kept."""
    chat = Chat(engine, chat_id)
    chat.seat("free", *P4)
    chat.say("Wang", "/s Wang+2.5 Li-2.5")  # Zhang and Chen sit at it too: rows of 0
    chat.seat("free poker", "Wang", "Li", "Zhang")
    season_id, _ = _season_and_players(engine, chat_id)
    with write_transaction(engine) as db:
        kept = {(b.player_id, b.unit): b.amount for b in book.balances(db, season_id)}
        players = {p.name: p for p in gateway_players.players_of_chat(db, chat_id)}
        seats = [players[name].id for name in ("Chen", "Li", "Wang")]
        people, balances = book.seated_with_balances(db, seats, season_id, "free")
        assert [p.name for p in people] == ["Chen", "Li", "Wang"]
        assert balances == {pid: kept[(pid, "free")] for pid in seats}
        _, fresh = book.seated_with_balances(db, seats, season_id, "free:poker")
        assert fresh == dict.fromkeys(seats, None)
        a, b, c = seats
        event = db.row("SELECT max(id) FROM event WHERE season_id = ?", (season_id,))
        assert event is not None
        after = book.add_transfers(
            db,
            event[0],
            [TransferRow(season_id, "free:poker", a, b, Fraction(1, 3), "pay", {})],
            season_id=season_id,
            unit="free:poker",
            seated=seats,
            balances=fresh,
        )
        assert after == {a: Fraction(-1, 3), b: Fraction(1, 3), c: 0}
        now = {(x.player_id, x.unit): x.amount for x in book.balances(db, season_id)}
    assert {pid: now[(pid, "free:poker")] for pid in seats} == after
