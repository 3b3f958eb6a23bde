"""Upgrades of databases that hold data: every revision of storage/migrations, in order.

For each revision R of the history (base → head, read from Alembic, so a new revision is covered
without touching this file): a database is built up to R, filled with raw SQL as the bot wrote
it at R (``SEEDERS``: the seeder of R, else of the nearest earlier revision that has one), then
upgraded to head. The data must come through unchanged, the schema must equal the models, and
the whole bot must work on it: views, a new hand, an undo, a redelivered update. The same runs on
PostgreSQL when a server answers.

Released revisions are frozen: ``released_migrations/<file>.txt`` keeps each one as it was
released, and a revision file that differs from its snapshot fails (change the schema with a new
revision; databases already at R would never see an edit of R).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine
from sqlmodel import SQLModel

import storage.models  # noqa: F401  (registers the tables)
from storage.db import make_engine
from storage.migrate import MIGRATIONS, alembic_config, upgrade
from tests.conftest import fresh_pg_database
from tests.emulator.api import Chat, User
from tests.integration.helpers import utc
from tests.reliability.harness import describe, make_bot

pytestmark = pytest.mark.slow

RELEASED = Path(__file__).parent / "released_migrations"
CHAT_ID = -1_001_234_567_890
WHEN = "2026-01-02 03:04:05.000000"
RECENT = (datetime.now(UTC) - timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S.%f")
NO_ID = ("balance", "processed_update")


def history() -> list[str]:
    """Revision ids from the first to head."""
    script = ScriptDirectory.from_config(alembic_config())
    return [rev.revision for rev in reversed(list(script.walk_revisions()))]


# --------------------------------------------------------------------------- seeders


@dataclass
class Seeded:
    """What a seeder wrote, to check after the upgrade."""

    balances: dict[tuple[int, str, str], Fraction]  # (season number, name, unit) → amount
    pars: dict[tuple[int, str, str], Fraction]  # the same rows' pars (revision 0019), non-zero
    events: int
    update_ids: list[int]
    players: list[str]  # seat order of the open mahjong table


def _insert(conn: Connection, table: str, **values: Any) -> int:
    columns = ", ".join(values)
    params = ", ".join(f":{k}" for k in values)
    returning = " RETURNING id" if "id" not in values and table not in NO_ID else ""
    result = conn.execute(
        text(f"INSERT INTO {table} ({columns}) VALUES ({params}){returning}"), values
    )
    return int(result.scalar_one()) if returning else 0


def seed_0001(
    conn: Connection, *, hand_counter: bool = True, seq_counter: bool = True, pars: bool = False
) -> Seeded:
    """Data as the bot of revision 0001 wrote it (hands without their seats in ``data``);
    `hand_counter`: the chat's row still has `next_hand_no` (it went in 0014), `seq_counter`:
    `next_seq` (it went in 0015), `pars`: the balances keep their pars (from 0019)."""
    import json

    _insert(
        conn,
        "chat",
        id=CHAT_ID,
        lang="en",
        stake="1/2",
        sisuang=False,
        zerosum=False,
        **({"next_seq": 6} if seq_counter else {}),
        **({"next_hand_no": 5} if hand_counter else {}),
        created_at=WHEN,
    )
    old = _insert(conn, "season", chat_id=CHAT_ID, number=1, opened_at=WHEN, archived_at=WHEN)
    new = _insert(conn, "season", chat_id=CHAT_ID, number=2, opened_at=WHEN, archived_at=None)
    names = ("Ann", "Bob", "Cat", "Dan")
    ids = [
        _insert(
            conn,
            "player",
            chat_id=CHAT_ID,
            name=name,
            user_id=None if name == "Dan" else 900_000 + i,
            username=None if name == "Dan" else name.lower(),
            created_at=WHEN,
        )
        for i, name in enumerate(names)
    ]
    closed = _insert(
        conn,
        "game_table",
        chat_id=CHAT_ID,
        thread_id=0,
        season_id=old,
        game="510k",
        marathon=False,
        sisuang=False,
        zerosum=False,
        seats=json.dumps(ids),
        dealer=0,
        opened_at=WHEN,
        closed_at=WHEN,
    )
    table = _insert(
        conn,
        "game_table",
        chat_id=CHAT_ID,
        thread_id=0,
        season_id=new,
        game="mahjong",
        marathon=False,
        sisuang=False,
        zerosum=False,
        seats=json.dumps(ids),
        dealer=0,
        opened_at=WHEN,
        closed_at=None,
    )
    value = {
        "how": "zimo",
        "pattern": "jihu",
        "groups": 0,
        "qingyise": False,
        "menqing": False,
        "quanqiuren": False,
        "k": 1,
        "base": 3,
        "unit": 3,
        "chain": 1,
        "formula": "self_draw",
        "value": 3,
    }

    def mahjong_hand(seq: int, hand_no: int, winner: int, undone_by: int | None = None) -> int:
        data = {
            "wins": [
                {
                    "winner": ids[winner],
                    "discarder": None,
                    "sealed": None,
                    "chain_kongs": [],
                    "value": value,
                }
            ],
            "kongs": [],
            "dealer_before": 0,
            "dealer_after": 0,
            "names": list(names),
        }
        event = _insert(
            conn,
            "event",
            chat_id=CHAT_ID,
            season_id=new,
            table_id=table,
            seq=seq,
            hand_no=hand_no,
            kind="hand",
            game="mahjong",
            text=f"/hu {winner + 1} zimo",
            data=json.dumps(data),
            recorded_by=900_000,
            recorded_by_name="Ann",
            created_at=WHEN,
            undone_by=undone_by,
        )
        for payer in range(4):
            if payer != winner:
                _insert(
                    conn,
                    "transfer",
                    event_id=event,
                    season_id=new,
                    unit="mahjong",
                    payer_id=ids[payer],
                    payee_id=ids[winner],
                    amount="3",
                    reason="win",
                    detail=json.dumps(value),
                )
        return event

    # season 1 (archived): one 510K hand
    k510 = {
        "names": list(names),
        "table": [30, 20, 40, 10],
        "order": [0, 2],
        "held": [0, 0, 0, 0],
        "result": {
            "card_points": [50, 0, 40, 10],
            "team_points": [90, 10],
            "winner": 0,
            "ranking": [0, 2, 1, 3],
            "doubled": False,
            "bonus": "0",
            "scores": ["45", "-5", "40", "0"],
            "incomplete": False,
        },
    }
    first = _insert(
        conn,
        "event",
        chat_id=CHAT_ID,
        season_id=old,
        table_id=closed,
        seq=1,
        hand_no=1,
        kind="hand",
        game="510k",
        text="/r 1=30 2=20 3=40 4=10 out 1 3",
        data=json.dumps(k510),
        recorded_by=900_000,
        recorded_by_name="Ann",
        created_at=WHEN,
        undone_by=None,
    )
    for seat, score in ((0, 45), (1, -5), (2, 40)):
        _insert(
            conn,
            "transfer",
            event_id=first,
            season_id=old,
            unit="510k",
            payer_id=None if score > 0 else ids[seat],
            payee_id=ids[seat] if score > 0 else None,
            amount=str(abs(score)),
            reason="score",
            detail=json.dumps(
                {"card_points": k510["result"]["card_points"][seat], "doubled": False}
            ),
        )
    # season 2 (current): a hand, a hand undone by an undo, a hand
    h1 = mahjong_hand(2, 2, winner=0)
    h2 = mahjong_hand(3, 3, winner=1)
    undo = _insert(
        conn,
        "event",
        chat_id=CHAT_ID,
        season_id=new,
        table_id=table,
        seq=4,
        hand_no=None,
        kind="undo",
        game="mahjong",
        text="/undo",
        data=json.dumps({"target": h2, "hand_no": 3}),
        recorded_by=900_001,
        recorded_by_name="Bob",
        created_at=WHEN,
        undone_by=None,
    )
    conn.execute(text("UPDATE event SET undone_by = :u WHERE id = :e"), {"u": undo, "e": h2})
    h3 = mahjong_hand(5, 4, winner=2)
    balances = {
        (1, "Ann", "510k"): Fraction(45),
        (1, "Bob", "510k"): Fraction(-5),
        (1, "Cat", "510k"): Fraction(40),
        (1, "Dan", "510k"): Fraction(0),
        (2, "Ann", "mahjong"): Fraction(9 - 3),
        (2, "Bob", "mahjong"): Fraction(-3 - 3),
        (2, "Cat", "mahjong"): Fraction(-3 + 9),
        (2, "Dan", "mahjong"): Fraction(-3 - 3),
    }
    # The 510K hand scored 80 in all at four seats: each sat at a hand whose average is 20.
    par_of = {key: Fraction(20) for key in balances if key[2] == "510k"}
    by_name = dict(zip(names, ids, strict=True))
    for (number, name, unit), amount in balances.items():
        _insert(
            conn,
            "balance",
            season_id=old if number == 1 else new,
            player_id=by_name[name],
            unit=unit,
            amount=str(amount),
            **({"par": str(par_of.get((number, name, unit), 0))} if pars else {}),
        )
    update_ids = [5_000_001, 5_000_002, 5_000_003, 5_000_004, 5_000_005]
    for update_id, event in zip(update_ids, (first, h1, h2, undo, h3), strict=True):
        _insert(
            conn,
            "processed_update",
            update_id=update_id,
            chat_id=CHAT_ID,
            event_id=event,
            processed_at=RECENT,  # redeliveries come within a day; older ids are pruned
        )
    return Seeded(balances, par_of, events=5, update_ids=update_ids, players=list(names))


#: Revision → the seeder writing data as the bot of that revision did. Add one when a revision
#: changes what the bot writes; revisions without one use the nearest earlier seeder.
SEEDERS: dict[str, Callable[[Connection], Seeded]] = {
    "0001": seed_0001,
    "0014": lambda conn: seed_0001(conn, hand_counter=False),
    "0015": lambda conn: seed_0001(conn, hand_counter=False, seq_counter=False),
    "0019": lambda conn: seed_0001(conn, hand_counter=False, seq_counter=False, pars=True),
}


def seeder_for(revision: str) -> Callable[[Connection], Seeded]:
    revisions = history()
    for rev in reversed(revisions[: revisions.index(revision) + 1]):
        if rev in SEEDERS:
            return SEEDERS[rev]
    raise AssertionError(f"no seeder for revision {revision} or any before it")


# --------------------------------------------------------------------------- databases


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of an empty database (no tables) on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/old.sqlite3"
        return
    with fresh_pg_database("jifen_mig") as url:
        yield url


def balances(
    engine: Engine, chat_id: int, column: str = "amount"
) -> dict[tuple[int, str, str], Fraction]:
    """The chat's balance rows' amounts (or another column: `par`), by (season, name, unit)."""
    query = text(
        f"SELECT s.number, p.name, b.unit, b.{column} FROM balance b "
        "JOIN season s ON s.id = b.season_id JOIN player p ON p.id = b.player_id "
        "WHERE s.chat_id = :chat"
    )
    with engine.connect() as conn:
        return {
            (int(n), str(name), str(u)): Fraction(a)
            for n, name, u, a in conn.execute(query, {"chat": chat_id})
        }


def pars(engine: Engine, chat_id: int) -> dict[tuple[int, str, str], Fraction]:
    """The non-zero pars of the chat's balance rows (revision 0019 on)."""
    return {key: par for key, par in balances(engine, chat_id, "par").items() if par}


def schema_drift(engine: Engine) -> list[Any]:
    with engine.connect() as conn:
        return list(compare_metadata(MigrationContext.configure(conn), SQLModel.metadata))


# --------------------------------------------------------------------------- tests


@pytest.mark.parametrize("revision", history())
def test_upgrade_from_each_revision_with_data(empty_url: str, revision: str) -> None:
    engine = make_engine(empty_url)
    try:
        upgrade(engine, revision)
        with engine.begin() as conn:
            seeded = seeder_for(revision)(conn)
        upgrade(engine, "head")
        upgrade(engine, "head")  # the bot upgrades on every start: idempotent
        assert schema_drift(engine) == [], "after the upgrade the schema differs from the models"
        assert balances(engine, CHAT_ID) == seeded.balances
        assert pars(engine, CHAT_ID) == seeded.pars  # written by the bot, or filled by 0019
        with engine.connect() as conn:
            events = conn.execute(
                text("SELECT count(*) FROM event WHERE chat_id = :c"), {"c": CHAT_ID}
            ).scalar_one()
        assert events == seeded.events
        check_the_bot_works(engine, seeded)
    finally:
        engine.dispose()


def test_step_by_step_upgrade_keeps_the_data(empty_url: str) -> None:
    """Data written at the first revision survives every single step up to head."""
    revisions = history()
    engine = make_engine(empty_url)
    try:
        upgrade(engine, revisions[0])
        with engine.begin() as conn:
            seeded = seeder_for(revisions[0])(conn)
        for revision in revisions[1:]:
            upgrade(engine, revision)
            assert balances(engine, CHAT_ID) == seeded.balances, f"data changed at {revision}"
        upgrade(engine, "head")
        assert balances(engine, CHAT_ID) == seeded.balances
        assert schema_drift(engine) == []
    finally:
        engine.dispose()


def test_the_schema_fills_what_a_new_row_leaves_out(empty_url: str) -> None:
    """From 0004 on the defaults are the schema's (the gateway's INSERTs leave them out): on a
    database upgraded with data, rows that give only what they decide get them."""
    import json

    engine = make_engine(empty_url)
    try:
        upgrade(engine, "0003")
        with engine.begin() as conn:
            seeded = seed_0001(conn)
        upgrade(engine, "head")
        chat = CHAT_ID + 1
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO chat (id) VALUES (:c)"), {"c": chat})
            season = _insert(conn, "season", chat_id=chat, number=1)
            player = _insert(conn, "player", chat_id=chat, name="Eve")
            table = _insert(conn, "game_table", chat_id=chat, season_id=season, game="mahjong")
            event = _insert(
                conn, "event", chat_id=chat, season_id=season, seq=1, kind="undo", game="mahjong"
            )
            _insert(
                conn,
                "transfer",
                event_id=event,
                season_id=season,
                unit="mahjong",
                payer_id=player,
                amount="1",
                reason="win",
            )
            _insert(conn, "balance", season_id=season, player_id=player, unit="mahjong")
            _insert(conn, "processed_update", update_id=1, chat_id=chat)

        def row(sql: str, **params: Any) -> tuple[Any, ...]:
            with engine.connect() as conn:
                return tuple(conn.execute(text(sql), params).one())

        def js(value: Any) -> Any:
            return json.loads(value) if isinstance(value, str) else value

        now = datetime.now(UTC)
        stamps = [
            row("SELECT created_at FROM chat WHERE id = :c", c=chat)[0],
            row("SELECT opened_at FROM season WHERE id = :i", i=season)[0],
            row("SELECT created_at FROM player WHERE id = :i", i=player)[0],
            row("SELECT opened_at FROM game_table WHERE id = :i", i=table)[0],
            row("SELECT created_at FROM event WHERE id = :i", i=event)[0],
            row("SELECT processed_at FROM processed_update WHERE update_id = 1")[0],
        ]
        for stamp in stamps:
            assert abs(utc(stamp) - now) < timedelta(minutes=5), stamps
        assert row("SELECT sisuang, zerosum FROM chat WHERE id = :c", c=chat) == (False, False)
        thread, marathon, sisuang, zerosum, seats, dealer = row(
            "SELECT thread_id, marathon, sisuang, zerosum, seats, dealer FROM game_table"
            " WHERE id = :i",
            i=table,
        )
        assert (thread, marathon, sisuang, zerosum, js(seats), dealer) == (0, 0, 0, 0, [], 0)
        text_, data, by = row(
            "SELECT text, data, recorded_by_name FROM event WHERE id = :i", i=event
        )
        assert (text_, js(data), by) == ("", {}, "")
        assert js(row("SELECT detail FROM transfer WHERE event_id = :i", i=event)[0]) == {}
        assert row("SELECT amount FROM balance WHERE season_id = :s", s=season) == ("0",)
        assert balances(engine, CHAT_ID) == seeded.balances
    finally:
        engine.dispose()


def check_the_bot_works(engine: Engine, seeded: Seeded) -> None:
    """The whole bot on the upgraded database: views, a new hand, an undo, a redelivery."""
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
            assert outcome.sent, message
            return "\n".join(outcome.texts)

        standings = say("/standings").splitlines()
        assert standings[-4:] == ["1. Ann +6", "2. Cat +6", "3. Bob -6", "4. Dan -6"], standings
        assert "Ann +45" in say("/standings 1")
        # Squared against the hand's average (20), as zerosum would have recorded it.
        assert say("/settle 1").splitlines()[2:4] == [
            "Bob → Ann 25 · 12.50 in money",  # the chat's stake: 0.5
            "Dan → Cat 20 · 10 in money",
        ]
        assert say("/settle money 1").splitlines()[1:3] == ["Bob → Ann 12.50", "Dan → Cat 10"]
        for message in ("/history", "/settle", "/settle money", "/seasons", "/players", "/rules"):
            say(message)
        say("/hu 4 zimo")
        after = balances(engine, CHAT_ID)
        assert after[(2, "Dan", "mahjong")] == seeded.balances[(2, "Dan", "mahjong")] + 9
        assert after[(2, "Ann", "mahjong")] == seeded.balances[(2, "Ann", "mahjong")] - 3
        assert "Undone" in say("/undo")
        assert balances(engine, CHAT_ID) == seeded.balances
        # An update processed before the upgrade, delivered again: nothing changes.
        update = bot.api.send_text(chat, ann, "/hu 1 zimo")
        update["update_id"] = seeded.update_ids[-1]
        outcome = bot.process(update)
        assert not outcome.errors, describe(outcome.errors)
        assert balances(engine, CHAT_ID) == seeded.balances
        bot.check_invariants()
    finally:
        bots.close()


def test_released_revisions_are_not_edited() -> None:
    """A revision file equals its released snapshot (a schema change is a new revision)."""
    for path in sorted((MIGRATIONS / "versions").glob("*.py")):
        snapshot = RELEASED / f"{path.name}.txt"
        if not snapshot.exists():
            continue  # not released yet: snapshot it when it lands on main
        assert path.read_text() == snapshot.read_text(), (
            f"{path.name} was edited after its release: databases already at this revision "
            "will never see the change. Revert it and add a new revision."
        )
    assert (RELEASED / "0001_initial_schema.py.txt").exists()


def test_free_tables_after_the_upgrade(empty_url: str) -> None:
    """0009 gives the tables a name: the old ones get '' (and keep playing); a free table and
    its unit (`free:<name>`) sit beside the seeded balances."""
    from service.replies import StandingsView
    from tests.integration.helpers import Chat as ServiceChat

    engine = make_engine(empty_url)
    try:
        upgrade(engine, "0008")
        with engine.begin() as conn:
            seeded = seed_0001(conn)
        upgrade(engine, "head")
        with engine.connect() as conn:
            names = conn.execute(text("SELECT DISTINCT name FROM game_table")).scalars().all()
        assert names == [""]
        chat = ServiceChat(engine, CHAT_ID)
        chat.say("Ann", "/new free 斗地主")
        chat.say("Ann", "/seats Ann Bob Cat")
        chat.say("Ann", "/s Ann+1.5 Bob")
        view = chat.say("Ann", "/standings")
        assert isinstance(view, StandingsView)
        assert [unit for unit, _ in view.sections] == ["mahjong", "free:斗地主"]
        assert balances(engine, CHAT_ID) == seeded.balances | {
            (2, "Ann", "free:斗地主"): Fraction(3, 2),
            (2, "Bob", "free:斗地主"): Fraction(-3, 2),
            (2, "Cat", "free:斗地主"): Fraction(0),
        }
    finally:
        engine.dispose()


def _k510_hand(
    conn: Connection,
    *,
    season: int,
    table: int,
    seq: int,
    seats: list[int],
    scores: list[Fraction],
    undone_by: int | None = None,
) -> int:
    """A 510K hand as the bot of revision 0016 wrote it: its seats in ``data``, a transfer
    with the table per non-zero score."""
    import json

    data = {"names": [], "seats": seats, "result": {"scores": [str(s) for s in scores]}}
    event = _insert(
        conn,
        "event",
        chat_id=CHAT_ID,
        season_id=season,
        table_id=table,
        seq=seq,
        hand_no=seq,
        kind="hand",
        game="510k3" if len(seats) == 3 else "510k",
        text="/r …",
        data=json.dumps(data),
        created_at=WHEN,
        undone_by=undone_by,
    )
    for pid, score in zip(seats, scores, strict=True):
        if score:
            _insert(
                conn,
                "transfer",
                event_id=event,
                season_id=season,
                unit="510k",
                payer_id=None if score > 0 else pid,
                payee_id=pid if score > 0 else None,
                amount=str(abs(score)),
                reason="score",
                detail="{}",
            )
    return event


def test_0019_fills_the_pars_from_the_ledger(empty_url: str) -> None:
    """Each live 510K hand's total shared among the seats it was recorded at (a substitute
    shares only his hands', an undone hand shares nothing, three players share in thirds);
    after the upgrade /settle squares the season hand by hand."""
    import json

    from service.replies import SettleView
    from tests.integration.helpers import Chat as ServiceChat

    engine = make_engine(empty_url)
    try:
        upgrade(engine, "0016")
        with engine.begin() as conn:
            seeded = seed_0001(conn, hand_counter=False, seq_counter=False)
            ids = {name: pid for name, pid in conn.execute(text("SELECT name, id FROM player"))}
            ids["Eve"] = _insert(conn, "player", chat_id=CHAT_ID, name="Eve", created_at=WHEN)
            season = int(conn.execute(text("SELECT id FROM season WHERE number = 2")).scalar_one())
            ann, bob, cat, dan, eve = (ids[n] for n in ("Ann", "Bob", "Cat", "Dan", "Eve"))
            table = _insert(
                conn,
                "game_table",
                chat_id=CHAT_ID,
                thread_id=7,
                season_id=season,
                game="510k",
                seats=json.dumps([ann, bob, cat, dan]),
                opened_at=WHEN,
                closed_at=WHEN,
            )
            f = Fraction
            _k510_hand(  # Eve sits in for Dan: 80 in all, 20 each
                conn,
                season=season,
                table=table,
                seq=6,
                seats=[ann, bob, cat, eve],
                scores=[f(45), f(-5), f(45), f(-5)],
            )
            undo = _insert(
                conn,
                "event",
                chat_id=CHAT_ID,
                season_id=season,
                table_id=table,
                seq=8,
                kind="undo",
                game="510k",
                created_at=WHEN,
            )
            _k510_hand(  # undone: no par
                conn,
                season=season,
                table=table,
                seq=7,
                seats=[ann, bob, cat, dan],
                scores=[f(45, 2), f(15, 2), f(45, 2), f(15, 2)],
                undone_by=undo,
            )
            _k510_hand(  # three players: 20 in all, a third each
                conn,
                season=season,
                table=table,
                seq=9,
                seats=[ann, bob, eve],
                scores=[f(40), f(0), f(-20)],
            )
            amounts = {ann: 85, bob: -5, cat: 45, dan: 0, eve: -25}
            for pid, amount in amounts.items():
                _insert(
                    conn,
                    "balance",
                    season_id=season,
                    player_id=pid,
                    unit="510k",
                    amount=str(amount),
                )
        upgrade(engine, "head")
        third = Fraction(20, 3)
        assert pars(engine, CHAT_ID) == seeded.pars | {
            (2, "Ann", "510k"): 20 + third,
            (2, "Bob", "510k"): 20 + third,
            (2, "Cat", "510k"): Fraction(20),
            (2, "Eve", "510k"): 20 + third,
        }
        view = ServiceChat(engine, CHAT_ID).say("Ann", "/settle")
        assert isinstance(view, SettleView)
        net: dict[str, Fraction] = {}
        for unit, plan in view.sections:
            for payer, payee, amount in plan if unit == "510k" else ():
                net[payer] = net.get(payer, Fraction(0)) - amount
                net[payee] = net.get(payee, Fraction(0)) + amount
        assert net == {
            "Ann": 85 - 20 - third,
            "Bob": -5 - 20 - third,
            "Cat": Fraction(45 - 20),
            "Eve": -25 - 20 - third,
        }
        assert view.squared == ("510k",)
    finally:
        engine.dispose()
