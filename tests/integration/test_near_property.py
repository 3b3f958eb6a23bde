"""Random evenings with near repeats (issue 37, point 5): a hand typed again by another member
within two minutes with a flag more or less (the same winner, way and payer), answered
[Replace #N], [Record both] or [No], by one or two members; mixed with kongs, substitutions
and undos. Whatever happened, the live hands are the ones the answers meant, every balance is
the sum of the live records' transfers and the pars add up to the balances. Also the kong of a
player who left, at a seat now taken by someone who had sat elsewhere (a hypothesis find)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from service.errors import ServiceError
from service.replies import Recorded, RepeatAsk
from service.requests import Answered
from tests.integration.helpers import Chat
from tests.integration.test_people_property import HOST, MEMBERS, SEATED, Evening, _chats, ledger

FLAGS = ("qys", "pph", "mq", "qys pph")
ANSWERS = ("replace", "both", "no")

STEPS = [
    st.tuples(st.just("hu"), st.tuples(st.integers(1, 4), st.integers(0, 4))),
    st.tuples(st.just("gang"), st.integers(1, 4)),
    st.tuples(st.just("sub"), st.tuples(st.integers(1, 4), st.integers(0, 5))),
    st.tuples(st.just("undo"), st.none()),
    st.tuples(
        st.just("near"),
        st.tuples(
            st.integers(1, 4),
            st.integers(0, 4),
            st.sampled_from(FLAGS),
            st.sampled_from(ANSWERS),
            st.booleans(),  # answered twice, by two members
        ),
    ),
]


def whole(chat: Chat) -> None:
    """Every balance is its live records' sum; the pars add up to the balances."""
    amounts, pars, live = ledger(chat.service.engine, chat.chat_id)
    assert {k: v for k, v in amounts.items() if v} == {k: v for k, v in live.items() if v}
    for unit in {u for u, _ in amounts}:
        total = sum((v for (u, _), v in amounts.items() if u == unit), Fraction(0))
        assert sum((v for (u, _), v in pars.items() if u == unit), Fraction(0)) == total


def near(evening: Evening, arg: tuple[int, int, str, str, bool]) -> None:
    """One member types a hand, another the same hand with other flags: asked about, then
    answered as drawn; the live hands are what the answer means."""
    winner, source, flags, answer, twice = arg
    how = "zimo" if source in (0, winner) else f"pao {source}"
    first = evening.say(HOST, f"/hu {winner} {how}")
    if not isinstance(first, Recorded):  # refused (a kong's player is away): nothing to repeat
        return
    before = evening.live_records()
    chat = evening.chat
    chat.ask_repeats = True
    try:
        asked = chat.say(MEMBERS[1], f"/hu {winner} {how} {flags}")
    except ServiceError:  # a flag this hand cannot take (清一色 七对…): refused, nothing kept
        assert evening.live_records() == before
        return
    finally:
        chat.ask_repeats = False
    assert isinstance(asked, RepeatAsk) and asked.near is not None, asked
    assert evening.live_records() == before  # nothing recorded until answered
    if answer == "no":
        return
    request = Answered(asked.near, replace=answer == "replace")
    for who in (HOST, MEMBERS[0])[: 2 if twice else 1]:
        chat.press(who, request)
    assert evening.live_records() == before + (answer == "both")
    evening.last = None


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(st.one_of(*STEPS), min_size=1, max_size=16))
def test_near_repeats_record_what_the_answer_means(
    engine: Engine, steps: list[tuple[str, object]]
) -> None:
    chat = Chat(engine, next(_chats), admins=(HOST,))
    evening = Evening(chat)
    chat.seat("mahjong", *SEATED)
    for kind, arg in steps:
        if kind == "near" and isinstance(arg, tuple):
            near(evening, arg)
        else:
            evening.step(kind, arg)
    whole(chat)


def test_a_leaver_s_kong_where_someone_from_another_seat_sits_now(engine: Engine) -> None:
    """Bruno kongs; Emma takes Alice's seat, Alice takes Bruno's; Emma kongs, Chen wins: the
    kong is still Bruno's (Alice stands in at his seat), and the ledger stays whole."""
    chat = Chat(engine, next(_chats), admins=(HOST,))
    evening = Evening(chat)
    chat.seat("mahjong", *SEATED)
    for kind, arg in [("gang", 2), ("sub", (1, 0)), ("sub", (2, 0)), ("gang", 1)]:
        evening.step(kind, arg)
    assert evening.seats() == ["Emma", "Alice", "Chen", "Dmitri"]
    hand = chat.say(HOST, "/hu 3 zimo")
    assert isinstance(hand, Recorded)
    to_bruno = {p.payer for p in hand.view.payments if p.payee == "Bruno"}
    assert to_bruno == {"Emma", "Chen", "Dmitri"}  # his concealed kong: 1 from each other seat
    assert dict(hand.view.net)["Bruno"] == 3
    whole(chat)
