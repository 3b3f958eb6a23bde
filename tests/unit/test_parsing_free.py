"""The free-scoring commands as people type them: /new free, /s, /pay."""

from __future__ import annotations

from fractions import Fraction

import pytest

from bot.commands.parsing import ParseError, parse
from scoring.games import Game
from service.requests import NewTable, Pay, PlayerRef, RefKind, Score, ScoreEntry

WANG, LI, ZHANG = (PlayerRef(RefKind.NAME, n) for n in ("老王", "小李", "阿张"))


def score(*entries: tuple[PlayerRef, int | str | None]) -> Score:
    return Score(tuple(ScoreEntry(p, None if a is None else Fraction(a)) for p, a in entries))


@pytest.mark.parametrize(
    ("text", "request_"),
    [
        ("/new free", NewTable(Game.FREE)),
        ("/new free 斗地主", NewTable(Game.FREE, name="斗地主")),
        ("/new 自由 poker", NewTable(Game.FREE, name="poker")),
        ("/s 老王+30 小李-10 阿张-20", score((WANG, 30), (LI, -10), (ZHANG, -20))),
        ("/s 老王+30 小李-10 阿张", score((WANG, 30), (LI, -10), (ZHANG, None))),
        ("/s 老王 +30 小李 -10 阿张", score((WANG, 30), (LI, -10), (ZHANG, None))),
        ("/s 老王赢30 小李输10 阿张", score((WANG, 30), (LI, -10), (ZHANG, None))),
        ("/s 老王＋30 小李－10 阿张", score((WANG, 30), (LI, -10), (ZHANG, None))),
        ("/s 老王 −2.5 小李", score((WANG, "-2.5"), (LI, None))),
        ("/score 老王+1.25 小李", score((WANG, "1.25"), (LI, None))),
        ("/记 老王+1 小李", score((WANG, 1), (LI, None))),
        (
            "/s 1+5 2",
            score((PlayerRef(RefKind.SEAT, "1"), 5), (PlayerRef(RefKind.SEAT, "2"), None)),
        ),
        ("/pay 老王 小李 5", Pay(WANG, LI, Fraction(5))),
        ("/付 老王 小李 2.50", Pay(WANG, LI, Fraction(5, 2))),
        (
            "/pay me @bob +3",
            Pay(PlayerRef(RefKind.ME), PlayerRef(RefKind.USERNAME, "bob"), Fraction(3)),
        ),
    ],
)
def test_free_commands(text: str, request_: object) -> None:
    assert parse(text) == request_


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("/new free two words", "one word"),
        ("/new free " + "x" * 25, "not a game name"),
        ("/s", "each player's score"),
        ("/s +30 小李", "no player before it"),
        ("/s 老王+30 +5", "no player before it"),
        ("/s 老王 30 小李", "write the sign"),
        ("/s 老王+30 老王-30", "named twice"),
        ("/s 老王+1234567890123 小李", "too big"),
        ("/pay 老王 小李", "the payer, the payee and the amount"),
        ("/pay 老王 老王 5", "cannot pay themselves"),
        ("/pay 老王 小李 -5", "not an amount"),
        ("/pay 老王 小李 five", "not an amount"),
    ],
)
def test_free_command_errors_name_the_problem(text: str, problem: str) -> None:
    with pytest.raises(ParseError) as err:
        parse(text)
    assert problem in str(err.value)
    assert err.value.usage
