"""Issue 38: /edit corrects a record in place, for every kind of record, on both databases: it
keeps its number and place, its payments become the corrected command's (checked as a new one
would be), balances stay the live payments, `/undo` of the correction brings the version before
back, and every version stays readable."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from fractions import Fraction

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from service.errors import ServiceError
from service.replies import Edited, HistoryView, Info, Recorded
from tests.integration.helpers import Chat

_chats = itertools.count(-9_380_000_000_000, -1)
P4 = ("Ann", "Bob", "Cat", "Dan")


def live_sums(engine: Engine, chat_id: int) -> dict[tuple[int, str], Fraction]:
    """(player, unit) → the sum of the payments of the chat's live events, of every kind."""
    out: dict[tuple[int, str], Fraction] = {}
    with engine.connect() as db:
        rows = db.execute(
            text(
                "SELECT t.payer_id, t.payee_id, t.unit, t.amount FROM transfer t"
                " JOIN event e ON e.id = t.event_id WHERE e.undone_by IS NULL AND e.chat_id = :c"
            ),
            {"c": chat_id},
        )
        for payer, payee, unit, amount in rows:
            for pid, sign in ((payer, -1), (payee, 1)):
                if pid is not None:
                    key = (int(pid), str(unit))
                    out[key] = out.get(key, Fraction(0)) + sign * Fraction(str(amount))
    return {k: v for k, v in out.items() if v}


def kept(engine: Engine, chat_id: int) -> dict[tuple[int, str], Fraction]:
    with engine.connect() as db:
        rows = db.execute(
            text(
                "SELECT b.player_id, b.unit, b.amount FROM balance b"
                " JOIN season s ON s.id = b.season_id WHERE s.chat_id = :c"
            ),
            {"c": chat_id},
        )
        found = {(int(p), str(u)): Fraction(str(a)) for p, u, a in rows}
    return {k: v for k, v in found.items() if v}


def square(chat: Chat) -> None:
    """The chat's kept balances are the sum of its live events' payments."""
    engine = chat.service.engine
    assert kept(engine, chat.chat_id) == live_sums(engine, chat.chat_id)


def edited(reply: object) -> Edited:
    assert isinstance(reply, Edited), reply
    return reply


def test_an_older_mahjong_hand_keeps_its_number_and_the_dealer_stays(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Cat pao Bob")  # #1: the deal passes to Bob
    chat.say("Ann", "/hu Bob zimo")  # #2: Bob deals on
    before = chat.balances()
    reply = edited(chat.say("Dan", "/edit 1 /hu Cat pao Bob pph qys"))
    assert reply.view.hand_no == 1 and reply.older and reply.dealer is None
    assert reply.by == "Dan" and "qys" in reply.added and "pph" in reply.added
    assert dict(reply.before.net)["Cat"] == 2 and dict(reply.view.net)["Cat"] == 18
    after = chat.balances()
    assert after["Cat"] - before["Cat"] == 16 and after["Bob"] - before["Bob"] == -16
    hand = chat.say("Ann", "/hu Ann zimo")  # Bob still dealt: the rotation is not replayed
    assert isinstance(hand, Recorded) and hand.view.hand_no == 3
    history = chat.say("Ann", "/history 1")
    assert isinstance(history, HistoryView)
    assert [v.view.text for v in history.versions] == ["/hu Cat pao Bob", "/hu Cat pao Bob pph qys"]
    assert [v.by for v in history.versions] == ["Ann", "Dan"]
    listing = chat.say("Ann", "/history")
    assert isinstance(listing, HistoryView)
    assert [(h.hand_no, h.edited) for h in listing.hands] == [(1, True), (2, False), (3, False)]
    square(chat)


def test_the_last_hand_corrected_moves_the_dealer_and_undo_brings_it_back(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    first = chat.say("Ann", "/hu Ann zimo")  # the dealer wins: Ann deals on
    assert isinstance(first, Recorded) and first.dealer == "Ann"
    reply = edited(chat.say("Bob", "/edit 1 Bob zimo"))  # the command word left out
    assert reply.dealer == "Bob" and not reply.older
    assert reply.view.text == "/hu Bob zimo"
    undone = edited(chat.say("Bob", "/undo"))  # the table's last change: the correction
    assert undone.undone and undone.dealer == "Ann" and undone.view.text == "/hu Ann zimo"
    assert chat.balances()["Ann"] == 9
    square(chat)


def test_a_hand_with_its_kongs_is_scored_with_them_again(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/gang Bob an")
    chat.say("Ann", "/hu Cat pao Dan")  # #1 settles Bob's kong
    chat.say("Ann", "/gang Dan an")  # the next hand's kong, pending
    reply = edited(chat.say("Ann", "/edit 1 /hu Cat pao Dan qys"))
    kongs = [p for p in reply.view.payments if p.reason == "kong"]
    assert len(kongs) == 3 and all(p.payee == "Bob" for p in kongs)
    nxt = chat.say("Ann", "/hu Ann zimo")  # Dan's pending kong is still this hand's
    assert isinstance(nxt, Recorded)
    assert any(p.reason == "kong" and p.payee == "Dan" for p in nxt.view.payments)
    square(chat)


def test_a_drawn_hand_and_a_pending_kong_are_corrected(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/liuju")
    reply = edited(chat.say("Ann", "/edit 1 /hu Bob pao Cat"))
    assert reply.view.text == "/hu Bob pao Cat" and dict(reply.view.net)["Bob"] == 2
    kong = chat.say("Ann", "/gang Cat an")
    assert isinstance(kong, Recorded)
    fixed = chat.press(
        "Ann", _edit(chat, "/gang Dan an", event_id=kong.view.event_id), text="/edit /gang Dan an"
    )
    assert isinstance(fixed, Edited) and fixed.view.hand_no is None
    hand = chat.say("Ann", "/hu Ann zimo")
    assert isinstance(hand, Recorded)
    assert {p.payee for p in hand.view.payments if p.reason == "kong"} == {"Dan"}
    square(chat)


def test_a_510k_report_a_free_round_and_a_transfer(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("510k", *P4)
    chat.say("Ann", "/r Ann=30 Bob=20 Cat=40 Dan=10 out Ann Cat")
    reply = edited(chat.say("Ann", "/edit 1 /r Ann=10 Bob=40 Cat=40 Dan=10 out Ann Cat"))
    assert reply.view.hand_no == 1
    chat.say("Ann", "/pay Bob Dan 5")
    pay = edited(chat.say("Ann", "/edit 2 /pay Bob Dan 7"))
    assert dict(pay.view.net)["Dan"] == 7
    square(chat)
    free = Chat(engine, next(_chats))
    free.seat("free 斗地主", "Ann", "Bob", "Cat")
    free.say("Ann", "/s Ann+30 Bob-10 Cat")
    round_ = edited(free.say("Bob", "/edit 1 Ann+20 Bob-10 Cat"))
    assert dict(round_.view.net) == {"Ann": 20, "Bob": -10, "Cat": -10}
    assert free.balances("free:斗地主") == {"Ann": 20, "Bob": -10, "Cat": -10}
    square(free)


def test_a_marathon_corrects_its_last_hand_only(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("510k marathon", *P4)
    chat.say("Ann", "/r Ann=30 Bob=20 Cat=40 Dan=10 out Ann Cat")
    chat.say("Ann", "/r Ann=30 Bob=20 Cat=40 Dan=10 out Ann Cat")
    with pytest.raises(ServiceError, match="marathon"):
        chat.say("Ann", "/edit 1 /r Ann=10 Bob=40 Cat=40 Dan=10 out Ann Cat")
    reply = edited(chat.say("Ann", "/edit 2 /r Ann=10 Bob=40 Cat=40 Dan=10 out Ann Cat"))
    assert reply.view.hand_no == 2
    square(chat)


def test_refusals_name_what_is_wrong_and_change_nothing(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Ann zimo")
    with pytest.raises(ServiceError, match="Zed"):
        chat.say("Ann", "/edit 1 /hu Zed zimo")
    with pytest.raises(ServiceError, match="no hand #9"):
        chat.say("Ann", "/edit 9 /hu Bob zimo")
    with pytest.raises(ServiceError, match="recorded with /hu"):
        chat.say("Ann", "/edit 1 /pay Ann Bob 5")
    same = chat.say("Ann", "/edit 1 /hu Ann zimo")
    assert isinstance(same, Info) and "already says that" in same.msgid
    chat.say("Ann", "/undo 1")
    with pytest.raises(ServiceError, match="undone"):
        chat.say("Ann", "/edit 1 /hu Bob zimo")
    square(chat)


def test_who_may_correct(engine: Engine) -> None:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Ann zimo")
    chat.seat("free 斗地主", "Ann", "Bob", "Cat")  # another table: #1 is the old one's
    with pytest.raises(ServiceError, match=r"several|another table|Several"):
        chat.say("Bob", "/edit 1 /hu Bob zimo")
    chat.say("Ann", "/reset confirm")
    with pytest.raises(ServiceError):
        chat.say("Ann", "/edit 1 /hu Bob zimo")


def test_an_admin_corrects_another_tables_hand(engine: Engine) -> None:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.seat("mahjong", *P4)
    hand = chat.say("Ann", "/hu Ann zimo")
    assert isinstance(hand, Recorded)
    chat.seat("free 斗地主", "Ann", "Bob", "Cat")
    with pytest.raises(ServiceError, match="admins"):
        chat.press("Bob", _edit(chat, "/hu Bob zimo", event_id=hand.view.event_id))
    reply = chat.press("Ann", _edit(chat, "/hu Bob zimo", event_id=hand.view.event_id))
    assert isinstance(reply, Edited) and reply.view.hand_no == 1
    square(chat)


def test_exactly_once(engine: Engine) -> None:
    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Ann zimo")
    first = edited(chat.say("Bob", "/edit 1 /hu Bob zimo", update_id=7_380_001))
    again = chat.say("Bob", "/edit 1 /hu Bob zimo", update_id=7_380_001)  # redelivered
    assert isinstance(again, Info) and "Already done" in again.msgid
    with pytest.raises(ServiceError, match="changed meanwhile by Bob"):  # another member
        chat.say("Cat", "/edit 1 /hu Cat zimo")
    stale = _edit(chat, "/hu Cat zimo", event_id=first.view.event_id, seen=1)
    with pytest.raises(ServiceError, match="changed meanwhile"):  # the app's version is old
        chat.press("Cat", stale)
    on_top = _edit(chat, "/hu Cat zimo", event_id=first.edit_id)  # a reply to the correction
    assert isinstance(chat.press("Cat", on_top, text="/edit /hu Cat zimo"), Edited)
    history = chat.say("Ann", "/history 1")
    assert isinstance(history, HistoryView) and len(history.versions) == 3
    square(chat)


def _edit(chat: Chat, command: str, *, event_id: int, seen: int | None = None) -> object:
    """The request of `/edit <command>` sent as a reply to record `event_id`'s message."""
    from dataclasses import replace

    from bot.commands.parsing import parse
    from service.requests import Edit

    request = parse(f"/edit {command}")
    assert isinstance(request, Edit)
    return replace(request, event_id=event_id, seen=seen)


def test_the_csv_carries_the_current_version_marked_edited(engine: Engine) -> None:
    from service.replies import ExportData

    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Cat pao Bob")
    chat.say("Ann", "/hu Bob zimo")
    chat.say("Ann", "/edit 1 /hu Cat pao Bob qys")
    data = chat.say("Ann", "/export")
    assert isinstance(data, ExportData)
    rows = list(data.rows)
    assert [(r[1], r[6], r[12]) for r in rows if r[1] == 1] == [(1, "9", 1)]
    assert {r[12] for r in rows if r[1] == 2} == {0}


def test_export_all_carries_the_whole_trail(engine: Engine) -> None:
    from service.replies import ExportData

    chat = Chat(engine, next(_chats))
    chat.seat("mahjong", *P4)
    chat.say("Ann", "/hu Cat pao Bob")
    chat.say("Ann", "/edit 1 /hu Cat pao Bob qys")
    chat.say("Ann", "/edit 1 /hu Cat pao Bob qys pph")
    current = chat.say("Ann", "/export")
    trail = chat.say("Ann", "/export all")
    assert isinstance(current, ExportData) and isinstance(trail, ExportData)
    assert [(r[1], r[6], r[9], r[12]) for r in current.rows] == [(1, "18", 0, 1)]
    rows = [(r[1], r[6], r[9]) for r in trail.rows]
    assert rows == [(1, "18", 0), (1, "2", 1), (1, "9", 1)]  # in recorded order


def test_an_earlier_sitting_is_an_admins_to_correct(engine: Engine) -> None:
    chat = Chat(engine, next(_chats), admins=("Ann",))
    chat.seat("mahjong", *P4)
    hand = chat.say("Ann", "/hu Ann zimo")
    assert isinstance(hand, Recorded)
    with engine.begin() as db:  # played seven hours ago: a pause longer than a sitting's
        db.execute(
            text("UPDATE event SET created_at = :at WHERE id = :id"),
            {"at": datetime.now(UTC) - timedelta(hours=7), "id": hand.view.event_id},
        )
    with pytest.raises(ServiceError, match="earlier sitting"):
        chat.say("Bob", "/edit 1 /hu Bob zimo")
    assert isinstance(chat.say("Ann", "/edit 1 /hu Bob zimo"), Edited)
    square(chat)
