"""The kongs of the hand being played: which a 杠上花 or a 抢杠 takes, which settle with it."""

from __future__ import annotations

from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from scoring import Kong, KongKind, PendingKongs

A, B, C, D = 0, 1, 2, 3
AN, MING, BU = KongKind.AN, KongKind.MING, KongKind.BU


@st.composite
def kongs(draw: st.DrawFn) -> Kong:
    konger = draw(st.integers(0, 3))
    kind = draw(st.sampled_from(KongKind))
    source = None if kind is AN else draw(st.integers(0, 3).filter(lambda s: s != konger))
    return Kong(konger, kind, source)


RECORDED = st.lists(kongs(), max_size=8)
SEATS = st.integers(0, 3)
LENGTHS = st.integers(1, 4)


def is_subsequence(part: tuple[Kong, ...], whole: tuple[Kong, ...]) -> bool:
    rest = iter(whole)
    return all(any(k == w for w in rest) for k in part)


# -- examples -------------------------------------------------------------------------------


def test_nothing_taken_everything_settles() -> None:
    recorded = (Kong(A, AN), Kong(B, MING, C))
    kongs = PendingKongs(recorded)
    assert kongs.settling() == recorded
    assert kongs.pending(A) == (Kong(A, AN),)
    assert kongs.pending(D) == ()


def test_gangkai_takes_the_winners_latest_kongs() -> None:
    first, second = Kong(A, AN), Kong(A, BU, C)
    other = Kong(B, MING, D)
    kongs = PendingKongs((first, other, second, Kong(A, MING, B)))
    assert kongs.gangkai(A, 2) == (second, Kong(A, MING, B))
    assert kongs.settling() == (first, other)
    assert kongs.pending(A) == (first,)


def test_gangkai_with_too_few_kongs_takes_nothing() -> None:
    recorded = (Kong(A, AN), Kong(B, AN))
    kongs = PendingKongs(recorded)
    assert kongs.gangkai(A, 2) is None
    assert kongs.gangkai(C, 1) is None
    assert kongs.settling() == recorded


def test_a_kong_is_taken_once() -> None:
    kongs = PendingKongs((Kong(A, AN),))
    assert kongs.gangkai(A, 1) == (Kong(A, AN),)
    assert kongs.gangkai(A, 1) is None
    assert kongs.settling() == ()


def test_written_gangkai_chain_takes_the_same_recorded_kongs() -> None:
    chain = (Kong(A, AN), Kong(A, MING, B))
    kongs = PendingKongs((Kong(A, BU, C), *chain, Kong(D, AN)))
    kongs.gangkai_written(A, chain)
    assert kongs.settling() == (Kong(A, BU, C), Kong(D, AN))


def test_written_gangkai_chain_not_recorded_takes_nothing() -> None:
    recorded = (Kong(A, AN), Kong(A, MING, B))
    kongs = PendingKongs(recorded)
    kongs.gangkai_written(A, (Kong(A, MING, B), Kong(A, AN)))  # another order
    kongs.gangkai_written(A, (Kong(A, AN),) * 3)  # more than recorded
    assert kongs.settling() == recorded


def test_robbed_added_kong_is_cancelled_and_ends_the_chain() -> None:
    earlier = Kong(B, MING, C)
    robbed = Kong(B, BU, D)
    kongs = PendingKongs((earlier, Kong(A, AN), robbed))
    assert kongs.rob(B, 2) == (earlier, robbed)
    assert kongs.settling() == (earlier, Kong(A, AN))


def test_robbed_added_kong_is_cancelled_even_with_too_short_a_chain() -> None:
    kongs = PendingKongs((Kong(B, BU, D),))
    assert kongs.rob(B, 2) == ()
    assert kongs.settling() == ()


def test_rob_after_an_exposed_kong_takes_nothing() -> None:
    recorded = (Kong(B, BU, D), Kong(B, MING, C))
    kongs = PendingKongs(recorded)
    assert kongs.rob(B, 1) == ()
    assert kongs.rob(C, 1) == ()  # no kong recorded
    assert kongs.settling() == recorded


def test_rob_after_a_concealed_kong_gives_its_chain_for_the_rules_to_refuse() -> None:
    recorded = (Kong(B, AN),)
    kongs = PendingKongs(recorded)
    assert kongs.rob(B, 1) == recorded
    assert kongs.settling() == recorded


# -- properties -----------------------------------------------------------------------------


@given(RECORDED, SEATS, LENGTHS)
def test_gangkai_chain_is_the_last_n_of_the_winners_pending_kongs(
    recorded: list[Kong], winner: int, n: int
) -> None:
    kongs = PendingKongs(recorded)
    before = kongs.pending(winner)
    chain = kongs.gangkai(winner, n)
    if len(before) < n:
        assert chain is None
        assert kongs.settling() == tuple(recorded)
    else:
        assert chain is not None
        assert len(chain) == n
        assert chain == before[len(before) - n :]
        assert kongs.pending(winner) == before[: len(before) - n]


@given(RECORDED, SEATS, LENGTHS)
def test_robbed_chain_is_empty_or_the_last_n_ending_in_the_robbed_kong(
    recorded: list[Kong], robbed: int, n: int
) -> None:
    kongs = PendingKongs(recorded)
    before = kongs.pending(robbed)
    chain = kongs.rob(robbed, n)
    assert chain in ((), before[len(before) - n :])
    assert len(chain) in (0, n)
    assert all(k.konger == robbed for k in chain)
    taken = len(before) - len(kongs.pending(robbed))
    assert taken == (1 if before and before[-1].kind is BU else 0)


@given(RECORDED, st.lists(st.tuples(st.sampled_from(["gangkai", "rob"]), SEATS, LENGTHS)))
def test_every_kong_is_taken_by_a_win_or_settles_in_order(
    recorded: list[Kong], wins: list[tuple[str, int, int]]
) -> None:
    kongs = PendingKongs(recorded)
    taken: Counter[Kong] = Counter()
    for how, seat, n in wins:
        if how == "gangkai":
            taken.update(kongs.gangkai(seat, n) or ())
        else:
            mine = kongs.pending(seat)
            kongs.rob(seat, n)
            taken.update(mine[len(kongs.pending(seat)) :])
    settling = kongs.settling()
    assert is_subsequence(settling, tuple(recorded))
    assert Counter(settling) + taken == Counter(recorded)
