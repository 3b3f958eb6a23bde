"""Reads sent ahead with a write's chat lock (`storage.read_ahead`, PostgreSQL): a read asked for
again is answered from there, a write of the transaction drops what was sent, and writes whose
reads changed (other seats, a new season, another table) still count right, on both backends."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Connection, Engine

from service.replies import Recorded
from storage.group_commit import Transactions
from storage.read_ahead import ReadAhead
from storage.sql import Sql
from tests.integration.helpers import Chat


@pytest.fixture
def pg(pg_engine: Engine) -> Engine:
    return pg_engine


LANG = "SELECT lang FROM chat WHERE id = ?"
LOCK = (
    "INSERT INTO chat (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET lang = chat.lang RETURNING id"
)
NOTHING = ("SELECT 1", ())


@pytest.mark.postgres
def test_a_read_sent_ahead_is_answered_from_the_first_round_trip(pg: Engine, chat_id: int) -> None:
    """Shown by a change the answer cannot hold: committed by another connection after the read
    was sent. (Here no chat lock is taken; every write of the product takes one, so no other
    transaction can change a chat's rows meanwhile.) Asked again, the read goes to the server."""
    Transactions(pg).run(
        lambda conn: Sql(conn).run("INSERT INTO chat (id, lang) VALUES (?, 'zh')", (chat_id,))
    )

    def read_twice(conn: Connection) -> tuple[object, object]:
        db = Sql(conn)
        db.lock_and_read(NOTHING, NOTHING, [(LANG, (chat_id,))])
        with pg.begin() as other:
            other.execute(text("UPDATE chat SET lang = 'en' WHERE id = :id"), {"id": chat_id})
        return db.row(LANG, (chat_id,)), db.row(LANG, (chat_id,))

    assert Transactions(pg).run(read_twice) == (("zh",), ("en",))


@pytest.mark.postgres
def test_a_write_drops_what_was_sent_ahead(pg: Engine, chat_id: int) -> None:
    def write(conn: Connection) -> tuple[object, ...]:
        db = Sql(conn)
        db.lock_and_read((LOCK, (chat_id,)), ("SELECT 1", ()), [(LANG, (chat_id,))])
        db.run("UPDATE chat SET lang = 'zh' WHERE id = ?", (chat_id,))
        return db.row(LANG, (chat_id,)), db.reads()

    seen, kept = Transactions(pg).run(write)
    assert seen == ("zh",)
    assert kept == ()  # only reads made before the first write are kept for the next time


@pytest.mark.postgres
def test_the_reads_before_the_first_write_are_kept(pg: Engine, chat_id: int) -> None:
    def write(conn: Connection) -> tuple[object, ...]:
        db = Sql(conn)
        db.lock_and_read((LOCK, (chat_id,)), ("SELECT 1", ()))
        db.row(LANG, (chat_id,))
        db.rows("SELECT id FROM chat WHERE id = ?", [chat_id])
        db.run("UPDATE chat SET lang = 'zh' WHERE id = ?", (chat_id,))
        db.row(LANG, (chat_id,))
        return db.reads()

    assert Transactions(pg).run(write) == (
        (LANG, (chat_id,)),
        ("SELECT id FROM chat WHERE id = ?", (chat_id,)),
    )


P4 = ("Wang", "Li", "Zhang", "Chen")


def _hand_no(reply: object) -> int:
    assert isinstance(reply, Recorded)
    return reply.view.hand_no


def test_hands_count_right_when_what_was_read_changes(engine: Engine, chat_id: int) -> None:
    """The same kind of write, again and again, while its reads change under it: each hand's
    number and every balance as if nothing had been sent ahead."""
    chat = Chat(engine, chat_id, admins=("Wang",))
    chat.seat("mahjong", *P4)
    assert [_hand_no(chat.say("Wang", "/hu Wang zimo")) for _ in range(3)] == [1, 2, 3]
    assert chat.balances() == {"Wang": 27, "Li": -9, "Zhang": -9, "Chen": -9}
    chat.say("Wang", "/seats Li Wang Zhang Zhao")  # other seats: other players read
    assert _hand_no(chat.say("Wang", "/hu Zhao zimo")) == 4
    assert chat.balances() == {"Wang": 24, "Li": -12, "Zhang": -12, "Chen": -9, "Zhao": 9}
    chat.say("Wang", "/undo")
    assert _hand_no(chat.say("Wang", "/hu Zhao zimo")) == 5
    chat.say("Wang", "/reset confirm")  # a new season: its balances and numbers start afresh
    assert _hand_no(chat.say("Wang", "/hu Li zimo")) == 1
    assert chat.balances() == {"Wang": -3, "Li": 9, "Zhang": -3, "Zhao": -3}
    chat.say("Wang", "/new 510k confirm")  # another table: its own numbers
    chat.say("Wang", "/seats Wang Li Zhang Zhao")
    report = "/r 1=30 2=20 3=40 4=10 out 1 3"
    assert [_hand_no(chat.say("Wang", report)) for _ in range(2)] == [1, 2]


def test_what_is_kept_is_bounded_and_the_latest() -> None:
    ahead = ReadAhead(kept=2)
    one, two = ((LANG, (1,)),), ((LANG, (2,)),)
    for key, reads in (("a", one), ("b", two), ("a", two), ("c", one)):
        ahead.learn(key, reads)
    assert (ahead.reads("a"), ahead.reads("b"), ahead.reads("c")) == (two, (), one)
    ahead.learn("a", ())  # a write that read nothing before writing: nothing to send
    ahead.learn("c", (("SELECT ?", ([1],)),))  # a parameter that cannot be matched
    assert ahead.reads("a") == ahead.reads("c") == ()
