"""/hu with the winner's tiles: the parser passes them on as written, in any clause, spaced or
not, glued to the word before them or not, Unicode tiles too; it never takes tiles for a
player."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.commands.parsing import ParseError, parse
from scoring import Pattern, WinType
from scoring.tiles import parse_tiles
from service.requests import Hu, HuClause, PlayerRef, RefKind
from tests.tiles_generator import build_hand, write

WANG, LI, ZHANG = (PlayerRef(RefKind.NAME, name) for name in ("老王", "小李", "阿张"))


def clause(text: str) -> HuClause:
    request = parse(text)
    assert isinstance(request, Hu)
    (only,) = request.clauses
    return only


@pytest.mark.parametrize(
    ("text", "expected"),
    [  # docs: the contract's three examples
        (
            "/hu 老王 zimo 11122233344455m",
            HuClause(WANG, WinType.ZIMO, tiles="11122233344455m"),
        ),
        (
            "/hu 老王 pao 小李 [777p] 123m456m789s55s",
            HuClause(WANG, WinType.DIANPAO, source=LI, tiles="[777p] 123m456m789s55s"),
        ),
        (
            "/hu 阿张 zimo 11335577m99p1144s",
            HuClause(ZHANG, WinType.ZIMO, tiles="11335577m99p1144s"),
        ),
    ],
)
def test_the_contracts_examples(text: str, expected: HuClause) -> None:
    assert clause(text) == expected


@pytest.mark.parametrize(
    ("text", "tiles"),
    [
        ("/hu 老王 zimo 111m 222m 333m 444m 55m", "111m 222m 333m 444m 55m"),
        ("/hu 老王 zimo11122233344455m", "11122233344455m"),  # glued to the keyword
        ("/hu 老王 自摸11122233344455m", "11122233344455m"),
        ("/hu 老王 pao 小李[777p]123m456m789s55s", "[777p]123m456m789s55s"),  # to a name
        ("/hu 老王自摸🀇🀇🀇🀈🀈🀈🀉🀉🀉🀊🀊🀊🀋🀋", "🀇🀇🀇🀈🀈🀈🀉🀉🀉🀊🀊🀊🀋🀋"),
        ("/hu 老王 zimo 【777p】123m456m789s55s", "【777p】123m456m789s55s"),
        ("/hu 老王 zimo ［777p］ １２３ｍ456m789s55s", "[777p] 123m456m789s55s"),  # full width
        ("/hu 老王 zimo 123 456m789s55s [777p]", "123 456m789s55s [777p]"),  # a suit missing
        ("/hu 老王 11122233344455m zimo", "11122233344455m"),  # before the how
        ("/hu 老王 renhu 11335577m99p1144s", "11335577m99p1144s"),  # not 人胡's payer
        ("/hu 老王 gangkai 2 (1111m)(2222m)333m44m555s", "(1111m)(2222m)333m44m555s"),
    ],
)
def test_tiles_are_passed_on_as_written(text: str, tiles: str) -> None:
    assert clause(text).tiles == tiles


def test_words_beside_the_tiles_and_whether_a_pattern_was_said() -> None:
    plain = clause("/hu 老王 zimo 11122233344455m qys")
    assert (plain.pattern_word, plain.qingyise, plain.pattern) == (False, True, Pattern.JIHU)
    said = clause("/hu 老王 zimo jihu 11122233344455m")
    assert said.pattern_word and said.pattern == Pattern.JIHU
    assert not clause("/hu 老王 zimo pph").pattern_word  # no tiles: nothing to check


def test_every_clause_of_several_winners_may_carry_tiles() -> None:
    request = parse("/hu 老王 pao 阿张 [777p] 123m456m789s55s; 小李 pao 阿张 qys; Chen pao 阿张 🀇🀇")
    assert isinstance(request, Hu)
    assert [c.tiles for c in request.clauses] == ["[777p] 123m456m789s55s", "", "🀇🀇"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("/hu 老王 pao 123m456m789s55s111z", "'pao' must be followed by the player who paid"),
        ("/hu 老王 zimo feng [777p]", "'feng' must be followed by the sealed player"),
        ("/hu 老王 gangkai ming (1111m)", "'ming' must be followed by the player"),
        ("/hu 老王 11122233344455m", "say how 老王 won"),
    ],
)
def test_tiles_are_never_a_player(text: str, message: str) -> None:
    with pytest.raises(ParseError) as info:
        parse(text)
    assert message in str(info.value)


@given(st.integers(0, 2**32), st.sampled_from(["compact", "spaced", "unicode"]))
def test_any_written_hand_reaches_the_service_as_the_same_tiles(seed: int, style: str) -> None:
    rng = random.Random(seed)
    pattern = rng.choice([Pattern.JIHU, Pattern.PENGPENGHU, Pattern.QIDUI])
    menqing = pattern == Pattern.QIDUI or rng.randrange(2) == 0
    built = build_hand(
        rng, pattern, rng.randrange(4) if pattern == Pattern.QIDUI else 0, menqing=menqing
    )
    text = write(built, rng, style)
    how = rng.choice(["zimo", "pao 小李", "gangpao 3 2", "renhu", "haidi"])
    tail = rng.choice(["", " qys", " feng 阿张"])
    for typed in (f"/hu 老王 {how} {text}{tail}", f"/hu 阿张 pao 3; 老王 {how} {text}{tail}"):
        request = parse(typed)
        assert isinstance(request, Hu)
        assert parse_tiles(request.clauses[-1].tiles) == parse_tiles(text), typed
