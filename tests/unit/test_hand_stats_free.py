"""What a free round adds to /stats (`scoring.hand_stats`): every player at the table plays a
round, a positive net is a win worth that net, all in the round's own unit."""

from __future__ import annotations

from fractions import Fraction

from scoring.hand_stats import Payment, hand_stats


def test_a_free_round_counts_in_its_unit() -> None:
    data = {"seats": [1, 2, 3, 4], "unit": "free:斗地主", "net": {}}
    payments = [
        Payment(None, 1, Fraction(61, 2), "score"),  # the table pays 1 his +30.5
        Payment(2, None, Fraction(10), "score"),
        Payment(3, None, Fraction(41, 2), "score"),
    ]
    tally = hand_stats("free", data, payments)
    assert tally.unit == "free:斗地主"
    assert {pid: c["hands"] for pid, c in tally.counts.items()} == {1: 1, 2: 1, 3: 1, 4: 1}
    assert {pid: c["wins"] for pid, c in tally.counts.items()} == {1: 1, 2: 0, 3: 0, 4: 0}
    assert tally.wins == [(1, Fraction(61, 2))]
    assert tally.pairs == {}  # a round is paid to and by the table: no head-to-head


def test_the_unnamed_free_game_is_its_own_unit() -> None:
    data = {"seats": [5, 6], "unit": "free"}
    tally = hand_stats("free", data, [Payment(None, 5, 3, "score"), Payment(6, None, 3, "score")])
    assert tally.unit == "free"
    assert tally.wins == [(5, Fraction(3))]
