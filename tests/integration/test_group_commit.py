"""Group commit (SQLite, the bot's event loop): concurrent writes share one commit, and each
stays atomic on its own: a failing write leaves nothing, a failed commit fails every write."""

from __future__ import annotations

import asyncio
import sqlite3

from sqlalchemy import event, text
from sqlalchemy.engine import Connection, Engine

from bot.commands.parsing import parse
from service.context import Ctx
from service.core import Service
from service.errors import ServiceError
from service.replies import Recorded
from storage.group_commit import BATCH_MOST, GroupCommit, Work
from tests.integration.helpers import Chat

P4 = ("Wang", "Li", "Zhang", "Chen")


def commits_of(engine: Engine) -> list[int]:
    seen: list[int] = []
    event.listen(engine, "commit", lambda _conn: seen.append(1))
    return seen


def add_chat(chat_id: int, *, fail: bool = False) -> Work[int]:
    def work(conn: Connection) -> int:
        conn.exec_driver_sql(
            "INSERT INTO chat (id, sisuang, zerosum, next_seq, created_at)"
            " VALUES (?, 0, 0, 1, '2026-01-01 00:00:00.000000')",
            (chat_id,),
        )
        if fail:
            raise ValueError(chat_id)
        return chat_id

    return work


def chat_ids(engine: Engine) -> set[int]:
    with engine.connect() as conn:
        return {row[0] for row in conn.execute(text("SELECT id FROM chat"))}


async def test_writes_queued_together_share_one_commit_and_fail_alone(
    sqlite_engine: Engine,
) -> None:
    commits = commits_of(sqlite_engine)
    group = GroupCommit(sqlite_engine)
    results = await asyncio.gather(
        *(group.submit(add_chat(i, fail=i % 3 == 0)) for i in range(1, 31)),
        return_exceptions=True,
    )
    assert [isinstance(r, ValueError) for r in results] == [i % 3 == 0 for i in range(1, 31)]
    assert [r for r in results if not isinstance(r, ValueError)] == [
        i for i in range(1, 31) if i % 3
    ]
    assert chat_ids(sqlite_engine) == {i for i in range(1, 31) if i % 3}
    assert len(commits) == 1  # all thirty were queued before the batch began


async def test_a_batch_takes_at_most_batch_most_writes(sqlite_engine: Engine) -> None:
    """The loop runs a batch's writes without a break: a burst is cut into batches of
    `BATCH_MOST`, each committed before the next begins, in the order they came."""
    commits = commits_of(sqlite_engine)
    group = GroupCommit(sqlite_engine)
    burst = range(1, 2 * BATCH_MOST + 2)
    assert await asyncio.gather(*(group.submit(add_chat(i)) for i in burst)) == list(burst)
    assert chat_ids(sqlite_engine) == set(burst) and len(commits) == 3


async def test_later_writes_form_the_next_batch(sqlite_engine: Engine) -> None:
    commits = commits_of(sqlite_engine)
    group = GroupCommit(sqlite_engine)
    assert await group.submit(add_chat(1)) == 1
    assert await group.submit(add_chat(2)) == 2
    assert chat_ids(sqlite_engine) == {1, 2} and len(commits) == 2


async def test_a_failed_commit_fails_every_write_of_its_batch(sqlite_engine: Engine) -> None:
    def orphan_season(conn: Connection) -> None:  # the foreign key is checked at commit
        conn.exec_driver_sql("PRAGMA defer_foreign_keys = ON")
        conn.exec_driver_sql(
            "INSERT INTO season (chat_id, number, opened_at)"
            " VALUES (404, 1, '2026-01-01 00:00:00.000000')"
        )

    group = GroupCommit(sqlite_engine)
    results = await asyncio.gather(
        group.submit(add_chat(1)), group.submit(orphan_season), return_exceptions=True
    )
    assert all(isinstance(r, Exception) and "FOREIGN KEY" in str(r) for r in results), results
    assert chat_ids(sqlite_engine) == set()
    assert await group.submit(add_chat(2)) == 2  # the queue goes on


async def test_service_on_the_loop_records_once_and_refuses_alone(sqlite_engine: Engine) -> None:
    """`Service.perform` as the bot calls it: several chats at once, one update delivered
    twice in the same batch, one bad command."""
    chats = [Chat(sqlite_engine, -1000 - i) for i in range(4)]
    for chat in chats:
        chat.seat("mahjong", *P4)
    service = Service(sqlite_engine)
    commits = commits_of(sqlite_engine)

    def ctx(chat: Chat, update_id: int, line: str) -> Ctx:
        return Ctx(chat.chat_id, chat.actor("Wang"), update_id=update_id, text=line)

    lines = ["/hu Wang zimo", "/hu Li pao Zhang", "/hu Nobody zimo", "/liuju"]
    calls = [
        service.perform(ctx(c, 9000 + i, line), parse(line))
        for i, (c, line) in enumerate(zip(chats, lines, strict=True))
    ]
    calls.append(service.perform(ctx(chats[0], 9000, lines[0]), parse(lines[0])))  # redelivered
    answers = await asyncio.gather(*calls, return_exceptions=True)

    assert len(commits) == 1
    first, second, refused, drawn, again = answers
    assert isinstance(refused, ServiceError)
    for answer in (first, second, drawn, again):
        assert not isinstance(answer, BaseException) and isinstance(answer.reply, Recorded)
    assert not first.reply.repeated and again.reply.repeated  # type: ignore[union-attr]
    assert again.reply.view.event_id == first.reply.view.event_id  # type: ignore[union-attr]
    assert chats[0].balances() == {"Wang": 9, "Li": -3, "Zhang": -3, "Chen": -3}
    assert chats[1].balances() == {"Wang": 0, "Li": 2, "Zhang": -2, "Chen": 0}
    assert chats[2].balances() == {}  # nothing recorded there
    assert chats[3].balances() == dict.fromkeys(P4, 0)
    with sqlite_engine.connect() as conn:
        claimed = {row[0] for row in conn.execute(text("SELECT update_id FROM processed_update"))}
        hands = conn.execute(text("SELECT count(*) FROM event WHERE chat_id = -1002")).scalar()
    assert {9000, 9001, 9003} <= claimed and 9002 not in claimed  # the refused one may come again
    assert hands == 0


async def test_a_batch_waits_for_another_writer_without_blocking_the_loop(
    sqlite_engine: Engine,
) -> None:
    """Another process holding the write lock: the batch waits in a thread; the loop runs on."""
    other = sqlite3.connect(sqlite_engine.url.database or "", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    group = GroupCommit(sqlite_engine)
    write = asyncio.create_task(group.submit(add_chat(7)))
    ticks = 0
    while ticks < 20:  # the loop keeps turning while the write waits for the lock
        await asyncio.sleep(0.01)
        ticks += 1
    assert not write.done()
    other.execute("COMMIT")
    other.close()
    assert await asyncio.wait_for(write, 10) == 7
    assert chat_ids(sqlite_engine) == {7}
    assert await group.submit(add_chat(8)) == 8  # and the next batch takes the fast way again


def test_the_savepoints_journal_stays_in_memory(sqlite_engine: Engine) -> None:
    """A batch's savepoints keep their pages in memory, not in a temporary file (`storage.db`:
    temp_store)."""
    with sqlite_engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA temp_store").scalar() == 2  # MEMORY
