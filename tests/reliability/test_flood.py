"""The flood guard: a sliding window per (chat, user), one warning, bounded memory; the bot's
behaviour under a flood; the setting."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from bot.chat.flood import FloodGuard, Verdict
from bot.settings import Settings
from tests.emulator.api import Chat, User
from tests.reliability.harness import BotUnderTest, make_bot

pytestmark = pytest.mark.slow

ALLOW, WARN, DROP = Verdict.ALLOW, Verdict.WARN, Verdict.DROP


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def tick(self, seconds: float) -> None:
        self.now += seconds


def test_twenty_in_ten_seconds_then_one_warning_then_silence() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=20, window=10.0, clock=clock)
    verdicts = []
    for _ in range(25):
        verdicts.append(guard.check(1, -100))
        clock.tick(0.1)
    assert verdicts == [ALLOW] * 20 + [WARN] + [DROP] * 4


def test_the_window_slides() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=3, window=10.0, clock=clock)
    for _ in range(3):
        assert guard.check(1, -100) is ALLOW
        clock.tick(1.0)  # at 0, 1, 2
    assert guard.check(1, -100) is WARN  # t=3
    clock.tick(6.9)  # t=9.9: the first is still inside the window
    assert guard.check(1, -100) is DROP
    clock.tick(0.2)  # t=10.1: the one of t=0 left
    assert guard.check(1, -100) is ALLOW
    assert guard.check(1, -100) is WARN  # full again: a new burst gets one new warning
    assert guard.check(1, -100) is DROP


def test_users_and_chats_are_independent() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=2, window=10.0, clock=clock)
    assert [guard.check(1, -100) for _ in range(3)] == [ALLOW, ALLOW, WARN]
    assert guard.check(2, -100) is ALLOW  # another member of the same chat
    assert guard.check(1, -200) is ALLOW  # the same user in another chat
    assert guard.check(1, -100) is DROP


def test_refused_commands_do_not_extend_the_block() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=2, window=10.0, clock=clock)
    guard.check(1, 1)
    guard.check(1, 1)
    for _ in range(50):  # hammering while blocked
        clock.tick(0.1)
        guard.check(1, 1)
    clock.tick(5.1)  # 10.1 s after the first allowed one
    assert guard.check(1, 1) is ALLOW


def test_retry_after() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=2, window=10.0, clock=clock)
    assert guard.retry_after(1, 1) == 0.0
    guard.check(1, 1)
    clock.tick(4.0)
    guard.check(1, 1)
    assert guard.retry_after(1, 1) == pytest.approx(6.0)
    clock.tick(6.5)
    assert guard.retry_after(1, 1) == 0.0


def test_idle_users_are_forgotten() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=5, window=10.0, clock=clock)
    for user in range(1000):
        guard.check(user, -100)
    assert len(guard) == 1000
    clock.tick(10.5)
    guard.check(5000, -100)  # any check sweeps the idle ones
    assert len(guard) == 1


def test_memory_is_bounded_under_a_flood_of_distinct_users() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=5, window=10.0, clock=clock, max_keys=100)
    for user in range(10_000):
        guard.check(user, -100)
        assert len(guard) <= 100
    # the most recent users are still tracked
    for _ in range(4):
        guard.check(9_999, -100)
    assert guard.check(9_999, -100) is WARN


def test_bad_parameters() -> None:
    with pytest.raises(ValueError):
        FloodGuard(limit=0)
    with pytest.raises(ValueError):
        FloodGuard(window=0)
    with pytest.raises(ValueError):
        FloodGuard(max_keys=0)


@settings(max_examples=200, deadline=None)
@given(
    gaps=st.lists(st.floats(0.0, 3.0, allow_nan=False), min_size=1, max_size=120),
    limit=st.integers(1, 6),
    window=st.floats(0.5, 10.0, allow_nan=False),
)
def test_never_more_than_limit_in_any_window_and_one_warning_per_burst(
    gaps: list[float], limit: int, window: float
) -> None:
    """Against a brute-force model: ALLOW iff fewer than `limit` allowed in the window; the first
    refusal after an ALLOW is the WARN."""
    clock = FakeClock()
    guard = FloodGuard(limit=limit, window=window, clock=clock)
    allowed: list[float] = []
    warned = False
    for gap in gaps:
        clock.tick(gap)
        verdict = guard.check(7, -1)
        live = [t for t in allowed if t > clock.now - window]
        if len(live) < limit:
            expected = ALLOW
            allowed.append(clock.now)
            warned = False
        elif not warned:
            expected, warned = WARN, True
        else:
            expected = DROP
        assert verdict is expected
        assert len([t for t in allowed if t > clock.now - window]) <= limit


def test_many_users_in_many_chats_stay_within_their_limits() -> None:
    clock = FakeClock()
    guard = FloodGuard(limit=20, window=10.0, clock=clock)
    rng = random.Random(8)
    times: dict[tuple[int, int], list[float]] = {}
    for _ in range(20_000):
        key = (rng.randrange(50), rng.randrange(-10, 0))
        clock.tick(0.001)
        if guard.check(*key) is ALLOW:
            times.setdefault(key, []).append(clock.now)
    for allowed in times.values():  # 20 s of traffic: never more than 20 in any 10 s
        assert all(sum(t - 10.0 < u <= t for u in allowed) <= 20 for t in allowed)
    assert max(len(a) for a in times.values()) > 20  # and the window really slid


# --------------------------------------------------------------------------- in the bot


@pytest.fixture
def flood_bot(sqlite_engine: Engine) -> Iterator[BotUnderTest]:
    """The bot with a small limit: 3 commands per 60 s per user and chat."""
    config = Settings.given(
        token="123:TEST", database_url=str(sqlite_engine.url), rate_limit=False, flood=(3, 60.0)
    )
    yield from make_bot(sqlite_engine, flood=True, config=config)


def test_a_flooding_member_gets_one_warning_and_cannot_touch_the_ledger(
    flood_bot: BotUnderTest,
) -> None:
    bot = flood_bot
    group, other = Chat(-100_111, "supergroup", title="g"), Chat(-100_112, "supergroup", title="h")
    ann, bob = User(1, "Ann", language_code="en"), User(2, "Bob", language_code="en")
    for chat in (group, other):
        bot.api.add_chat(chat)
        for user in (ann, bob):
            bot.api.set_member(chat.id, user, "member")
    assert bot.say(ann, "/new mahjong", group).sent
    assert bot.say(ann, "/seats Ann Bob Cat Dan", group).sent
    assert bot.say(ann, "/hu 1 zimo", group).sent  # the third: still allowed
    before = bot.snapshot()
    warning = bot.say(ann, "/hu 1 zimo", group)
    assert len(warning.sent) == 1 and not warning.errors
    assert "slow down" in warning.texts[0].lower()
    for _ in range(20):  # silence, and nothing recorded
        dropped = bot.say(ann, "/hu 1 zimo", group)
        assert not dropped.sent and not dropped.errors
    hand = bot.api.bot_messages(group.id)[-2]["message_id"]
    press = bot.press(ann, group, hand, "v1:undo:1")  # buttons count too: answered, no spinner
    assert len(press.answers) == 1 and not press.errors
    assert bot.snapshot() == before
    # Others are not slowed down: another member, the same member elsewhere.
    assert bot.say(bob, "/standings", group).sent
    assert bot.say(ann, "/help", other).sent
