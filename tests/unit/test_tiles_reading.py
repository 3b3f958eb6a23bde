"""Reading a hand from its tiles (scoring.tiles): readings, the one scored, refusals, words."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

import scoring
from scoring import (
    Kong,
    KongKind,
    MahjongHand,
    Pattern,
    ScoringError,
    Win,
    WinType,
    hand_value,
    settle_hand,
)
from scoring.tiles import TILES_ERRORS, MeldKind, Reading, TilesReading, check_words, read_tiles

JIHU, PPH, QIDUI = Pattern.JIHU, Pattern.PENGPENGHU, Pattern.QIDUI
ZIMO, PAO = WinType.ZIMO, WinType.DIANPAO


def facts(reading: Reading) -> tuple[Pattern, int, bool, bool, bool]:
    return (reading.pattern, reading.groups, reading.qingyise, reading.menqing, reading.quanqiuren)


def shown(reading: Reading) -> str:
    return " ".join(str(meld) for meld in reading.melds)


def refused(text: str, how: WinType = PAO) -> ScoringError:
    with pytest.raises(ScoringError) as caught:
        read_tiles(text, how)
    assert str(caught.value) == TILES_ERRORS[caught.value.code].format(**caught.value.params)
    return caught.value


def test_commands_examples() -> None:
    """The examples of COMMANDS.md, "Tiles instead of pattern words"."""
    pph = read_tiles("11122233344455m", ZIMO).best  # = zimo qys mq pph
    assert facts(pph) == (PPH, 0, True, True, False)
    assert shown(pph) == "111m 222m 333m 444m 55m"
    plain = read_tiles("[777p] 123m456m789s55s", PAO).best
    assert facts(plain) == (JIHU, 0, False, False, False)
    assert shown(plain) == "[777p] 123m 456m 789s 55s"
    pairs = read_tiles("11335577m99p1144s", ZIMO).best  # = zimo qidui
    assert facts(pairs) == (QIDUI, 0, False, True, False)
    assert shown(pairs) == "11m 33m 55m 77m 99p 11s 44s"


def test_the_highest_scoring_reading_is_first() -> None:
    read = read_tiles("11112222333344m", PAO)
    assert [facts(r)[:2] for r in read.readings] == [(QIDUI, 3)] + [(JIHU, 0)] * 3
    assert shown(read.best) == "11m 11m 22m 22m 33m 33m 44m"
    assert read.best.unit == 4 * 16 * 2  # 门清 × 超级豪华大七对 × 清一色
    assert [r.unit for r in read.readings] == sorted((r.unit for r in read.readings), reverse=True)
    pph = read_tiles("11122233344455m", PAO)
    assert [shown(r) for r in pph.readings] == [
        "111m 222m 333m 444m 55m",
        "111m 234m 345m 345m 22m",
        "111m 234m 234m 234m 55m",
        "123m 123m 123m 444m 55m",
    ]


def test_readings_are_distinct() -> None:
    for text in ("11112222333344m", "11122233344455m", "11123455678999m", "22223333444455p"):
        melds = [Counter(r.melds) for r in read_tiles(text, PAO).readings]
        assert all(a != b for i, a in enumerate(melds) for b in melds[i + 1 :]), text


@pytest.mark.parametrize(
    ("text", "groups"),
    [
        ("11335577m99p1144s", 0),
        ("1111335577m99p11s", 1),  # 七大对: 11 11 33 55 77m 99p 11s
        ("1111m2222p335577s", 2),
        ("111122223333m44z", 3),
    ],
)
def test_seven_pairs_count_sets_of_four(text: str, groups: int) -> None:
    best = read_tiles(text, ZIMO).best
    assert (best.pattern, best.groups) == (QIDUI, groups)
    assert len(best.melds) == 7 and {m.kind for m in best.melds} == {MeldKind.PAIR}


def test_concealed_kong_keeps_menqing_and_exposed_groups_do_not() -> None:
    assert read_tiles("(9999m) 123m456p789s55s", ZIMO).best.menqing
    assert not read_tiles("[9999m] 123m456p789s55s", ZIMO).best.menqing
    assert not read_tiles("[999m] 123m456p789s55s", ZIMO).best.menqing
    plain = read_tiles("(9999m) 123m456p789s55s", ZIMO).best
    assert (plain.pattern, plain.unit) == (JIHU, 4)


def test_quanqiuren_needs_four_exposed_groups_and_a_discard() -> None:
    four = "[111m][2222p][333s][444z]55z"
    on_discard = read_tiles(four, PAO).best
    assert facts(on_discard) == (PPH, 0, False, False, True)
    assert on_discard.unit == 3 * 2 * 2
    self_drawn = read_tiles(four, ZIMO).best  # 十.2: scores as 碰碰胡 自摸
    assert facts(self_drawn) == (PPH, 0, False, False, False)
    assert self_drawn.unit == 6
    assert not read_tiles("[111m][2222p][333s](4444z)55z", PAO).best.quanqiuren
    assert not read_tiles("[111m][2222p][333s]444z55z", PAO).best.quanqiuren


def test_qingyise_counts_every_tile_and_no_honours() -> None:
    assert read_tiles("[999m] 123m456m789m55m", PAO).best.qingyise
    assert not read_tiles("[999p] 123m456m789m55m", PAO).best.qingyise
    assert not read_tiles("111222333444z55z", PAO).best.qingyise


def test_kongs_in_the_tiles() -> None:
    read = read_tiles("[7777p] (9999m) 123m55s [222s]", PAO)
    assert [(str(k.tile), k.exposed) for k in read.kongs] == [("7p", True), ("9m", False)]
    assert read.kongs == read.tiles.kongs
    assert read_tiles("123m456m789s555s11z", PAO).kongs == ()


def test_unit_is_hand_values_for_every_way_to_win() -> None:
    hands = ["(9999m) 123m456p789s55s", "11122233344455m", "1111m2222p335577s", "123456789m11122z"]
    for how in WinType:
        for text in hands:
            if how.always_concealed and "(" in text:
                continue  # refused: tiles_special_melds
            for reading in read_tiles(text, how).readings:
                win = Win(0, how, discarder=1 if how.needs_discarder else None)
                dealer = 1 if how in (WinType.DIHU, WinType.RENHU) else 0
                if how == WinType.GANGKAI:  # the chain's kong is the hand's, or one drawn for it
                    win = Win(0, how, chain_kongs=(Kong(0, KongKind.AN),))
                    if reading.pattern == QIDUI:
                        continue  # seven pairs hold no kong: no 杠上花
                assert hand_value(reading.apply(win), dealer).unit == reading.unit


def test_the_hu_example_settles() -> None:
    """/hu 老王 pao 小李 [777p] 123m456m789s55s: 鸡胡 not 门清, 2 from the discarder."""
    read = read_tiles("[777p] 123m456m789s55s", PAO)
    win = check_words(read).apply(Win(winner=0, how=PAO, discarder=1))
    settled = settle_hand(MahjongHand(dealer=2, wins=(win,)))
    assert settled.net() == {0: 2, 1: -2, 2: 0, 3: 0}


def test_not_a_winning_hand_names_the_tiles_left_over() -> None:
    error = refused("123m456m789m11z2p5s8s")
    assert error.params == {"left": "2p 5s 8s"}
    assert "2p 5s 8s" in str(error)
    assert refused("1122334455667m9p").params == {"left": "7m 9p"}
    assert refused("[777p] 123m456m789s5s6s").params == {"left": "5s 6s"}
    assert refused("[777p][888p][999p][111s] 12z").params == {"left": "1z 2z"}
    assert refused("1357913579m1357p").code == "tiles_not_winning"


@pytest.mark.parametrize("how", [WinType.TIANHU, WinType.DIHU, WinType.RENHU])
def test_first_tile_wins_show_no_groups(how: WinType) -> None:
    for text in ("[777p] 123m456m789s55s", "(7777p) 123m456m789s55s"):
        error = refused(text, how)
        assert error.code == "tiles_special_melds"
        assert error.params["group"] in ("[777p]", "(7777p)")
    assert read_tiles("777p 123m456m789s55s", how).best.menqing


def test_parse_errors_come_through() -> None:
    assert refused("[123m] 456m789s55s").code == "tiles_exposed_run"
    assert refused("11111m").code == "tiles_copies"


# --- words typed beside the tiles ---


def words_error(read: TilesReading, **words: object) -> ScoringError:
    with pytest.raises(ScoringError) as caught:
        check_words(read, **words)  # type: ignore[arg-type]
    assert str(caught.value) == TILES_ERRORS[caught.value.code].format(**caught.value.params)
    return caught.value


def test_words_that_agree_choose_among_the_readings() -> None:
    read = read_tiles("11122233344455m", ZIMO)  # 碰碰胡 or 鸡胡
    assert check_words(read) is read.best
    assert check_words(read, pattern=PPH, qingyise=True, menqing=True) is read.best
    assert check_words(read, pattern=JIHU) is read.readings[1]
    assert check_words(read_tiles("1111335577m99p11s", ZIMO), pattern=QIDUI, groups=1).groups == 1
    four = read_tiles("[111m][2222p][333s][444z]55z", ZIMO)
    assert check_words(four, quanqiuren=True, sealed=True, pattern=PPH) is four.best


def test_words_that_contradict_the_tiles() -> None:
    two_suits = read_tiles("[777p] 123m456m789s55s", PAO)
    error = words_error(two_suits, qingyise=True)
    assert (error.code, error.params) == ("tiles_words_qingyise", {"suits": "m p s"})
    error = words_error(two_suits, menqing=True)
    assert (error.code, error.params) == ("tiles_words_menqing", {"group": "[777p]"})
    error = words_error(two_suits, quanqiuren=True)
    assert (error.code, error.params) == ("tiles_words_quanqiuren", {"exposed": 1})
    error = words_error(two_suits, sealed=True)
    assert (error.code, error.params) == ("tiles_words_sealed", {"exposed": 1})
    error = words_error(two_suits, pattern=PPH)
    assert (error.code, error.params) == ("tiles_words_pattern", {"word": "pph", "read": "jihu"})
    error = words_error(two_suits, pattern=QIDUI, groups=2)
    assert error.params == {"word": "qidui2", "read": "jihu"}
    pungs = read_tiles("111m222p333s444z55z", PAO)
    assert words_error(pungs, pattern=JIHU).params == {"word": "jihu", "read": "pph"}
    big = read_tiles("1111335577m99p11s", PAO)
    error = words_error(big, pattern=QIDUI, groups=2)
    assert (error.code, error.params) == (
        "tiles_words_groups",
        {"word": "qidui2", "counted": 1, "read": "qidui1"},
    )
    assert words_error(big, pattern=QIDUI).params["word"] == "qidui"


# --- the error codes ---


def raised_codes() -> set[str]:
    codes: set[str] = set()
    for path in Path(scoring.__file__).parent.glob("tiles*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "refusal":
                first = node.args[0]
                assert isinstance(first, ast.Constant), ast.dump(node)
                codes.add(first.value)
    return codes


def test_every_code_raised_has_its_meaning_and_no_other() -> None:
    """Every refusal goes through `refusal`, which fills the code's template with its params
    (the tests of each refusal check that they fill it)."""
    assert raised_codes() == set(TILES_ERRORS)
    others = {**scoring.MAHJONG_ERRORS, **scoring.K510_ERRORS, **scoring.SETTLE_UP_ERRORS}
    assert not set(TILES_ERRORS) & set(others)
    assert scoring.ERROR_CODES.items() >= TILES_ERRORS.items()
    for code, meaning in TILES_ERRORS.items():
        assert code.isascii() and code == code.lower() and code.startswith("tiles_")
        assert meaning
