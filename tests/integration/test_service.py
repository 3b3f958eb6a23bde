"""The core loop below Telegram, on SQLite and PostgreSQL: recording, undo, seasons, isolation."""

from __future__ import annotations

from datetime import timedelta
from fractions import Fraction

import pytest
from sqlalchemy import func
from sqlalchemy.engine import Engine
from sqlmodel import Session, select

from service.errors import Forbidden, ServiceError
from service.replies import Recorded, ResetAsk, ResetDone, TableView, Undone
from service.requests import Undo
from storage.models import Event, ProcessedUpdate, utcnow
from tests.integration.helpers import Chat

P4 = ("Wang", "Li", "Zhang", "Chen")


def mahjong(engine: Engine, chat_id: int) -> Chat:
    chat = Chat(engine, chat_id, admins=("Wang",))
    chat.seat("mahjong", *P4)
    return chat


def events(engine: Engine, chat_id: int) -> int:
    with Session(engine) as s:
        return s.exec(select(func.count()).select_from(Event).where(Event.chat_id == chat_id)).one()


def test_self_draw_and_discard(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    chat.say("Wang", "/hu Wang zimo qys pph")  # u = 12, each pays 12
    chat.say("Li", "/hu 2 pao 3")  # plain hand on a discard: 2
    assert chat.balances() == {"Wang": 36, "Li": -10, "Zhang": -14, "Chen": -12}
    assert sum(chat.balances().values()) == 0


def test_kongs_settle_with_the_hand_and_chain_is_not_paid_twice(
    engine: Engine, chat_id: int
) -> None:
    chat = mahjong(engine, chat_id)
    chat.say("Li", "/gang Li an")
    chat.say("Zhang", "/gang Zhang ming Chen")
    reply = chat.say("Zhang", "/hu Zhang gangkai")  # exposed chain of 1 from Chen: 2·9+1 = 19
    assert isinstance(reply, Recorded)
    # Li's concealed kong: 1 from each other; Zhang's kong is inside the 杠上花 amount.
    assert chat.balances() == {"Zhang": 19 - 1, "Li": 3, "Chen": -19 - 1, "Wang": -1}


def test_drawn_hand_settles_kongs_and_keeps_dealer(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    chat.say("Chen", "/gang Chen bu Wang")
    reply = chat.say("Wang", "/liuju")
    assert isinstance(reply, Recorded) and reply.dealer == "Wang"
    assert chat.balances() == {"Chen": 1, "Wang": -1, "Li": 0, "Zhang": 0}


def test_many_kongs_of_one_hand_all_settle(engine: Engine, chat_id: int) -> None:
    """More kongs than the first read of the table's latest records takes."""
    chat = mahjong(engine, chat_id)
    chat.say("Wang", "/hu Wang zimo")  # a hand before them, which they do not belong to
    for name in ("Li", "Zhang", "Chen", "Li"):
        chat.say(name, f"/gang {name} an")
    chat.say("Wang", "/liuju")  # each concealed kong: 1 from each of the three others
    assert chat.balances() == {
        "Wang": 9 - 4,
        "Li": -3 + 6 - 2,
        "Zhang": -3 + 3 - 3,
        "Chen": -3 + 3 - 3,
    }


def test_robbed_kong_is_cancelled(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    chat.say("Chen", "/gang Chen bu Wang")
    chat.say("Li", "/hu Li qianggang Chen")  # 3u = 9 from the robbed player; kong scores nothing
    assert chat.balances() == {"Li": 9, "Chen": -9, "Wang": 0, "Zhang": 0}


def test_sealed_player_and_several_winners(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    chat.say("Wang", "/hu Wang pao Li pph feng Zhang")  # V = 9: Li 9, Zhang 9 (双飞)
    assert chat.balances() == {"Wang": 18, "Li": -9, "Zhang": -9, "Chen": 0}
    chat.say("Li", "/hu Li pao Chen; Zhang pao Chen qys")  # 2 + 9 (k=2, u=6 → 3u/2)
    assert chat.balances() == {"Wang": 18, "Li": -7, "Zhang": 0, "Chen": -11}


def test_dealer_rotates_and_undo_restores_it(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    reply = chat.say("Li", "/hu Li zimo")
    assert isinstance(reply, Recorded) and reply.dealer == "Li"
    undone = chat.say("Li", "/undo")
    assert isinstance(undone, Undone) and undone.dealer == "Wang"
    assert chat.balances() == {name: 0 for name in P4}
    with pytest.raises(ServiceError):  # 天胡 by a non-dealer
        chat.say("Li", "/hu Li tianhu")
    chat.say("Wang", "/hu Wang tianhu")  # 2u = 8 each
    assert chat.balances()["Wang"] == 24


def test_bad_input_changes_nothing(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    before = events(engine, chat_id), chat.balances()
    for text in (
        "/hu Nobody zimo",
        "/hu Wang pao Wang",
        "/gang Li ming Li",
        "/r 1=5 2=5 3=5 4=5 out 1 3",
    ):
        with pytest.raises(ServiceError):
            chat.say("Li", text)
    assert (events(engine, chat_id), chat.balances()) == before


def test_an_update_delivered_twice_is_recorded_once(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    first = chat.say("Wang", "/hu Wang zimo", update_id=10**12 + chat_id)
    again = chat.say("Wang", "/hu Wang zimo", update_id=10**12 + chat_id)
    assert isinstance(first, Recorded) and isinstance(again, Recorded) and again.repeated
    assert again.view.event_id == first.view.event_id
    assert chat.balances()["Wang"] == 9


def test_510k_hand_and_halves(engine: Engine, chat_id: int) -> None:
    chat = Chat(engine, chat_id)
    chat.seat("510k", "A", "B", "C", "D")
    chat.say("A", "/r A=25 B=35 C=20 D=0/20 out B A C")
    assert chat.balances("510k") == {
        "A": Fraction(45, 2),
        "C": Fraction(45, 2),
        "B": Fraction(15, 2),
        "D": Fraction(15, 2),
    }


def test_510k_marathon_accumulates_then_scores_with_bonus(engine: Engine, chat_id: int) -> None:
    chat = Chat(engine, chat_id)
    chat.seat("510k3 marathon", "A", "B", "C")
    for _ in range(4):  # A: 50+20 = 70 a hand; B: 30; C: 20-20 = 0 (t₂+t₃ > 0: no doubling)
        reply = chat.say("A", "/r A=50 B=30 C=20 out A B")
        assert isinstance(reply, Recorded) and reply.progress is not None
        assert chat.balances("510k") == {"A": 0, "B": 0, "C": 0}
    assert chat.say("A", "/standings").progress is not None  # type: ignore[union-attr]
    for _ in range(4):
        chat.say("A", "/r A=50 B=30 C=20 out A B")
    # A reached 8 × 70 = 560 ≥ 500: scores are the totals, the winner gets 10% more.
    assert chat.balances("510k") == {"A": 616, "B": 240, "C": 0}
    chat.say("A", "/undo")
    assert chat.balances("510k") == {"A": 0, "B": 0, "C": 0}


def test_standings_separate_games(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    chat.say("Wang", "/hu Wang zimo")
    chat.seat("510k", *P4)
    chat.say("Wang", "/r 1=60 2=0 3=40 4=0 out 1 3")
    view = chat.say("Wang", "/standings")
    assert [unit for unit, _ in view.sections] == ["mahjong", "510k"]  # type: ignore[union-attr]


def test_chats_are_independent(engine: Engine, chat_id: int) -> None:
    one, other = mahjong(engine, chat_id), mahjong(engine, chat_id - 500_000)
    recorded = one.say("Wang", "/hu Wang zimo")
    assert isinstance(recorded, Recorded)
    assert other.balances() == {}
    with pytest.raises(ServiceError):  # another chat's Undo button
        other.press("Wang", Undo(event_id=recorded.view.event_id))
    assert one.balances()["Wang"] == 9


def test_reset_archives_the_season(engine: Engine, chat_id: int) -> None:
    chat = mahjong(engine, chat_id)
    chat.say("Wang", "/hu Wang zimo")
    with pytest.raises(Forbidden):
        chat.say("Li", "/reset")
    assert isinstance(chat.say("Wang", "/reset"), ResetAsk)
    assert chat.balances()["Wang"] == 9  # asking changes nothing
    done = chat.say("Wang", "/reset confirm")
    assert isinstance(done, ResetDone) and (done.archived, done.new) == (1, 2)
    assert chat.balances() == {}
    assert chat.balances(season=1)["Wang"] == 9
    assert isinstance(chat.say("Li", "/players"), TableView)  # the table stays seated
    chat.say("Li", "/hu Li zimo")
    assert chat.balances() == {"Li": 9, "Wang": -3, "Zhang": -3, "Chen": -3}


def test_old_update_ids_are_forgotten(engine: Engine, chat_id: int) -> None:
    """Telegram reuses update ids after a week without updates: old claims are pruned."""
    chat = mahjong(engine, chat_id)
    update_id = 2 * 10**12 - chat_id
    chat.say("Wang", "/hu Wang zimo", update_id=update_id)
    with Session(engine) as s:
        row = s.get(ProcessedUpdate, update_id)
        assert row is not None
        row.processed_at = utcnow() - timedelta(days=8)
        s.add(row)
        s.commit()
    fresh = Chat(engine, chat_id)  # a restarted process prunes before its first write
    again = fresh.say("Wang", "/hu Wang zimo", update_id=update_id)
    assert isinstance(again, Recorded) and not again.repeated
    assert chat.balances()["Wang"] == 18


def test_a_guest_seated_by_name_does_not_become_a_member_of_that_name(
    engine: Engine, chat_id: int
) -> None:
    """Issue 15.9: only the "I am" button or an admin's /link makes a guest a person."""
    chat = mahjong(engine, chat_id)  # /seats Wang Li Zhang Chen: all guests
    with pytest.raises(ServiceError, match="'me': you are not seated"):  # the guest stays a guest
        chat.say("Li", "/hu me zimo")
    with pytest.raises(ServiceError, match="table is full"):  # and Li is not seated as Li
        chat.say("Li", "/join")
    assert chat.balances() == {}
