"""The unit of work's contract, on SQLite and PostgreSQL: every use case is one transaction of
one chat, with the chat locked and the update claimed; a write reads back what it inserted; a
refusal leaves nothing; two chats never share a transaction nor wait for each other."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

import pytest
from sqlalchemy import event, func, select, text
from sqlalchemy.engine import Engine

from bot.commands.parsing import parse
from scoring.games import EventKind
from service.context import Actor, Ctx
from service.core import WRITES, Service
from service.errors import ServiceError
from service.repeats import answer_key
from service.replies import PlanMade, RepeatAsk
from service.requests import (
    Again,
    Answered,
    Claim,
    GuestRound,
    PlayerRef,
    PollPosted,
    PollVote,
    RefKind,
    Request,
    Score,
    ScoreEntry,
)
from storage.gateway import chats, players
from storage.gateway import ledger as book
from storage.models import chat as chat_table
from storage.models import processed_update
from storage.unit_of_work import ChatWrite, UnitOfWork, reading

ADMIN = Actor(1, "Wang", "wang")
LI = Actor(2, "Li", "li")
ZOE = Actor(3, "Zoe", "zoe")  # never seated: she may say which guest she is
YAN = Actor(4, "Yan", "yan")  # never seated: says he is the guest Chen
LI_REST = ScoreEntry(PlayerRef(RefKind.NAME, "Li"), None)  # a guest round's balancing player

#: One script that runs every write use case (the service's `WRITES`) at least once.
SCRIPT = (
    (ADMIN, "/new mahjong"),
    (ADMIN, "/join"),
    (ADMIN, "/join Guest"),
    (LI, "/join"),
    (ADMIN, "/seats Wang Li Zhang Chen"),
    (ADMIN, "/dealer Li"),
    (ADMIN, "/link Zhang @zhang"),
    (ADMIN, "/unlink Zhang"),
    (ADMIN, "/gang Li an"),
    (ADMIN, "/hu Wang zimo qys"),
    (ADMIN, "/liuju"),
    (ADMIN, "/pay Li Wang 3"),
    (ADMIN, "/undo"),
    (LI, "/edit 1 /hu Wang zimo"),  # issue 38: #1 corrected in place
    (ADMIN, "/set stake 0.5"),
    (ADMIN, "/set stake mahjong 1"),
    (ADMIN, "/new 510k confirm"),
    (ADMIN, "/seats Wang Li Zhang Chen"),
    (ADMIN, "/r 1=30 2=20 3=40 4=10 out 1 3"),
    (LI, "/r 1=20 2=30 3=40 4=10 out 1 3"),  # the same order, other points: asked
    (LI, "[both]"),  # and [Record both] records it
    (ADMIN, "/new free 斗地主 confirm"),
    (ADMIN, "/seats Wang Li Zhang"),
    (ADMIN, "/s Wang+3 Li-1 Zhang"),
    (LI, "/s Wang+3 Li-1 Zhang-2"),  # the same round again: the two-minute rule asks
    (LI, "[again]"),  # and [Record again] records it
    (ADMIN, "/fee 30 茶水"),
    (ADMIN, "/yue 周五 20:00 麻将"),
    (ADMIN, "/yue cancel"),
    (ADMIN, "/sub Zhang Zed"),
    (LI, "/leave"),
    (ADMIN, "/rename Zed Zeb"),
    (ADMIN, "/merge Zeb Chen"),
    (YAN, "/iam Chen"),
    (ADMIN, "/reset confirm"),
)


@contextmanager
def transactions(engine: Engine) -> Iterator[list[list[str]]]:
    """Each transaction's statements, as the engine ran them (one list per begin…commit)."""
    seen: list[list[str]] = []
    open_: dict[int, list[str]] = {}

    def began(conn: Any) -> None:
        open_.setdefault(id(conn), [])

    def ran(conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        # the engine's own "begin" listener emits BEGIN, maybe before `began` hears of it
        open_.setdefault(id(conn), []).append(statement)

    def ended(conn: Any) -> None:
        seen.append(open_.pop(id(conn), []))

    listeners = (("begin", began), ("before_cursor_execute", ran), ("commit", ended))
    for name, listener in listeners:
        event.listen(engine, name, listener)
    try:
        yield seen
    finally:
        for name, listener in listeners:
            event.remove(engine, name, listener)


def ctx(chat_id: int, actor: Actor, text: str, update_id: int) -> Ctx:
    return Ctx(
        chat_id=chat_id, actor=actor, is_admin=actor is ADMIN, update_id=update_id, text=text
    )


def claimed(engine: Engine, update_id: int) -> bool:
    with reading(engine) as db:
        found = db.scalar(
            select(func.count())
            .select_from(processed_update)
            .where(processed_update.c.update_id == update_id)
        )
    return bool(found)


def test_every_use_case_is_one_transaction_of_one_chat(engine: Engine, chat_id: int) -> None:
    service = Service(engine)
    ran: set[type[Request]] = set()
    asked: RepeatAsk | None = None
    for n, (actor, line) in enumerate(SCRIPT):
        request: Request = parse(line) if asked is None else Again(asked.view.event_id)
        if asked is not None and asked.near is not None:
            request = Answered(asked.near, replace=False)
        if not line.startswith("["):
            request = parse(line)
        update_id = abs(chat_id) * 100 + n
        with transactions(engine) as seen:
            reply = service.execute(ctx(chat_id, actor, line, update_id), request)
        asked = reply if isinstance(reply, RepeatAsk) else None
        # one commit, nothing written outside it (but the hourly pruning of old update ids)
        writes = [
            t
            for t in seen
            if not all(s.startswith(("BEGIN", "DELETE FROM processed_update")) for s in t)
        ]
        assert len(writes) == 1, (line, seen)
        statements = writes[0]
        if engine.dialect.name == "sqlite":  # the writer's BEGIN IMMEDIATE is its lock
            assert statements[0] == "BEGIN IMMEDIATE", statements
        else:  # the chat's row lock first
            assert statements[0].startswith("SELECT chat.id \nFROM chat"), statements
            assert statements[0].endswith("FOR UPDATE"), statements
        # then where it stands (a new chat's row is made and locked first)
        assert any("processed_update" in s for s in statements[1:4]), statements
        # an answer to a question is claimed under the question's key (one answer records)
        key = answer_key(request) if isinstance(request, Again | Answered) else update_id
        assert claimed(engine, key), line
        ran.add(type(request))
    with reading(engine) as db:
        guest = next(p for p in players.players_of_chat(db, chat_id) if p.name == "Guest")
    service.execute(ctx(chat_id, ZOE, "[me]", abs(chat_id) * 100 + 99), Claim(guest.id))
    ran.add(Claim)
    # guest mode, in a chat that never added the bot: its free table opened, the players
    # seated and the round recorded, in one transaction claimed with the update
    outside, update_id = chat_id - 500_000_000, abs(chat_id) * 100 + 98  # no other test's
    round_ = GuestRound(Score((ScoreEntry(PlayerRef(RefKind.NAME, "Wang"), Fraction(3)), LI_REST)))
    with transactions(engine) as seen:
        service.execute(ctx(outside, ADMIN, "/s Wang+3 Li", update_id), round_)
    assert len([t for t in seen if any("INSERT INTO event" in s for s in t)]) == 1, seen
    assert claimed(engine, update_id)
    ran.add(GuestRound)
    made = service.execute(
        ctx(chat_id, LI, "/yue 20:00", abs(chat_id) * 100 + 97), parse("/yue 20:00")
    )
    assert isinstance(made, PlanMade)
    poll = str(chat_id)  # a poll's id, as the bot posted it
    for n, request in enumerate((PollPosted(made.plan_id, poll, 7), PollVote(poll, (0,)))):
        with transactions(engine) as seen:
            service.execute(ctx(chat_id, ZOE, "[poll]", abs(chat_id) * 100 + 95 - n), request)
        assert len([t for t in seen if t]) == 1
        ran.add(type(request))
    assert ran == set(WRITES)  # a new use case joins the script


def test_a_write_reads_back_what_it_inserted(engine: Engine, chat_id: int) -> None:
    """A new chat's row, its first season, a player and an event, each read back in the same
    transaction that inserted it (before any commit)."""
    uow = UnitOfWork(engine)
    with uow.chat(chat_id, 0, None, make=ChatWrite) as work:
        db = work.db
        assert chats.get_chat(db, chat_id) == work.chat
        assert chats.current_season(db, chat_id) == work.season  # opened just now
        guest = players.add_player(db, chat_id, "Eve")
        assert players.players_by_id(db, [guest.id])[guest.id].name == "Eve"
        recorded = book.add_event(
            db,
            work.chat,
            season_id=work.season.id,
            table_id=None,
            kind=EventKind.UNDO,
            game="mahjong",
            text="/undo",
            data={"target": 0},
            recorded_by=None,
            recorded_by_name="",
        )
        found = book.event_by_id(db, recorded.id)
        assert found is not None and found.data == {"target": 0}
        assert recorded.seq == 1 and found.seq == 1  # the chat's first event
    with reading(engine) as db:
        assert chats.get_chat(db, chat_id) is not None


def test_a_refused_write_leaves_nothing_and_its_update_may_come_again(
    engine: Engine, chat_id: int
) -> None:
    service = Service(engine)
    with pytest.raises(ServiceError):  # no table here
        service.execute(ctx(chat_id, ADMIN, "/hu 1 zimo", 7_000_001), parse("/hu 1 zimo"))
    with reading(engine) as db:  # not even the chat's row
        assert db.scalar(select(func.count()).where(chat_table.c.id == chat_id)) == 0
    assert not claimed(engine, 7_000_001)
    service.execute(ctx(chat_id, ADMIN, "/new mahjong", 7_000_001), parse("/new mahjong"))
    assert claimed(engine, 7_000_001)


def test_a_redelivered_update_records_once(engine: Engine, chat_id: int) -> None:
    service = Service(engine)
    for n, line in enumerate(("/new mahjong", "/seats A B C D")):
        service.execute(ctx(chat_id, ADMIN, line, 7_100_000 + n), parse(line))
    for _ in range(3):
        service.execute(ctx(chat_id, ADMIN, "/hu 1 zimo", 7_100_009), parse("/hu 1 zimo"))
    with reading(engine) as db:
        season = chats.current_season(db, chat_id)
        assert season is not None
        assert len(book.hands(db, season.id)) == 1


def test_a_chat_s_refusal_is_its_own(engine: Engine, chat_id: int) -> None:
    """Writes of two chats at once, from threads: the one refused does not undo the other."""
    service, other = Service(engine), chat_id - 500_000
    for chat in (chat_id, other):
        service.execute(ctx(chat, ADMIN, "/new mahjong", abs(chat) * 10), parse("/new mahjong"))
    errors: list[BaseException] = []

    def write(chat: int, line: str, update_id: int) -> None:
        try:
            service.execute(ctx(chat, ADMIN, line, update_id), parse(line))
        except ServiceError as err:
            errors.append(err)

    threads = [
        threading.Thread(target=write, args=(chat_id, "/hu 1 zimo", abs(chat_id) * 10 + 1)),
        threading.Thread(target=write, args=(other, "/seats A B C D", abs(other) * 10 + 1)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(errors) == 1  # the table of `chat_id` has nobody seated
    assert claimed(engine, abs(other) * 10 + 1) and not claimed(engine, abs(chat_id) * 10 + 1)


@pytest.mark.postgres
async def test_a_chat_waiting_for_its_lock_stalls_no_other_chat(pg_engine: Engine) -> None:
    """PostgreSQL: while another transaction holds chat A's row, a write of chat B goes through,
    A's write waits for the lock, and the event loop keeps turning meanwhile."""
    service, a, b = Service(pg_engine), -9_100_001, -9_100_002
    for chat in (a, b):
        service.execute(ctx(chat, ADMIN, "/new mahjong", abs(chat) * 10), parse("/new mahjong"))
    with pg_engine.connect() as holder, holder.begin():
        holder.execute(text("SELECT id FROM chat WHERE id = :a FOR UPDATE"), {"a": a})
        waiting = asyncio.ensure_future(
            service.perform(ctx(a, ADMIN, "/players", abs(a) * 10 + 1), parse("/seats A B C D"))
        )
        ticks = 0
        started = time.monotonic()
        done_b = asyncio.ensure_future(
            service.perform(ctx(b, ADMIN, "/seats", abs(b) * 10 + 1), parse("/seats A B C D"))
        )
        while not done_b.done() and time.monotonic() - started < 10:
            await asyncio.sleep(0.01)
            ticks += 1
        assert done_b.done() and not waiting.done()
        assert ticks >= 1  # the loop turned while the writes ran in their threads
    await asyncio.wait_for(waiting, 10)  # released: A's write went through
    assert claimed(pg_engine, abs(a) * 10 + 1)
