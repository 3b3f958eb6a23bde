"""Every case of 510k-golden.json scores exactly as listed."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from scoring import Report510k, card_points, score_hand

CASES: list[dict[str, Any]] = json.loads(
    (Path(__file__).parent / "510k-golden.json").read_text(encoding="utf-8")
)


def report(case: dict[str, Any]) -> Report510k:
    seats: list[str] = case["seats"]
    return Report510k(
        table=tuple(case["table"][s] for s in seats),
        order=tuple(seats.index(s) for s in case["order"]),
        held=tuple(case["hand"].get(s, 0) for s in seats),
    )


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_golden_case(case: dict[str, Any]) -> None:
    seats: list[str] = case["seats"]
    expect = case["expect"]
    hand = report(case)
    result = score_hand(hand)
    assert card_points(hand) == tuple(expect["card_points"][s] for s in seats)
    assert result.card_points == card_points(hand)
    assert result.doubled is expect["doubled"]
    scores = tuple(Fraction(str(expect["score"][s])) for s in seats)
    assert result.scores == scores
    assert all(type(score) is Fraction for score in result.scores)
    assert not result.incomplete
    if case["mode"] == "4p":
        teams = ["".join(team) for team in case["teams"]]
        assert case["teams"] == [["A", "C"], ["B", "D"]]  # teams are seats 0+2 and 1+3
        assert result.team_points == tuple(expect["team_points"][t] for t in teams)
        assert result.winner == teams.index(expect["winner"])
        assert set(result.ranking[:2]) == {seats.index(s) for s in expect["winner"]}
    else:
        assert result.team_points is None
        ranking = tuple(seats.index(s) for s in expect["ranking"])
        assert result.ranking == ranking
        assert result.winner == ranking[0]
