"""The tile notation (scoring.tiles_notation): what it accepts, what it refuses and why."""

from __future__ import annotations

import pytest

from scoring import ScoringError
from scoring.tiles_model import TILES, TILES_ERRORS, Meld, MeldKind, Suit, Tile, notation
from scoring.tiles_notation import looks_like_tiles, parse_tiles


def tiles(text: str) -> tuple[Tile, ...]:
    """Compact digits and suits (no groups) as sorted tiles, read by hand."""
    out: list[Tile] = []
    digits = ""
    for char in text:
        if char.isdigit():
            digits += char
        else:
            out += [Tile(Suit(char), int(d)) for d in digits]
            digits = ""
    return tuple(sorted(out))


def refused(text: str) -> ScoringError:
    with pytest.raises(ScoringError) as caught:
        parse_tiles(text)
    assert str(caught.value) == TILES_ERRORS[caught.value.code].format(**caught.value.params)
    return caught.value


HAND = "123m456m789s555s11z"


@pytest.mark.parametrize(
    "text",
    [
        HAND,
        "123m 456m 789s 555s 11z",
        "123456m789555s11z",
        "11z555s789s456m123m",
        "１２３ｍ４５６ｍ７８９ｓ５５５ｓ１１ｚ",  # full width, as Chinese keyboards type it
        "123M456M789S555S11Z",
        "🀇🀈🀉🀊🀋🀌🀖🀗🀘🀔🀔🀔🀀🀀",
        "🀀🀇🀈🀉 456m 🀖🀗🀘555s🀀",
    ],
)
def test_same_hand_in_every_spelling(text: str) -> None:
    hand = parse_tiles(text)
    assert hand.declared == ()
    assert hand.concealed == tiles(HAND)
    assert str(hand) == "123456m555789s11z"


def test_unicode_block_order() -> None:
    """U+1F000..1F006: winds E S W N then dragons 中 发 白 (1z..7z); then characters (m),
    bamboo (s), circles (p), 1 to 9 each."""
    order = [chr(0x1F000 + i) for i in range(34)]
    expected = [
        *(f"{n}z" for n in range(1, 8)),
        *(f"{n}m" for n in range(1, 10)),
        *(f"{n}s" for n in range(1, 10)),
        *(f"{n}p" for n in range(1, 10)),
    ]
    for char, name in zip(order, expected, strict=True):
        pungs = [f"[{t[0] * 3}{t[1]}]" for t in ("1m", "2m", "3m", "4m", "5m") if t != name]
        hand = parse_tiles(char * 2 + "".join(pungs[:4]))
        assert hand.concealed == (Tile(Suit(name[1]), int(name[0])),) * 2


def test_emoji_presentation_selector_is_ignored() -> None:
    hand = parse_tiles("🀄️🀄️🀄️[111m][222m][333m]🀅🀅")
    assert hand.concealed == tiles("55566z")


def test_groups() -> None:
    hand = parse_tiles("[777p] (9999m) [2222s] 123m 55s")
    pung = Meld(MeldKind.PUNG, Tile(Suit.P, 7), exposed=True)
    concealed_kong = Meld(MeldKind.KONG, Tile(Suit.M, 9))
    exposed_kong = Meld(MeldKind.KONG, Tile(Suit.S, 2), exposed=True)
    assert hand.declared == (pung, concealed_kong, exposed_kong)
    assert hand.kongs == (concealed_kong, exposed_kong)
    assert hand.exposed == (pung, exposed_kong)
    assert hand.concealed == tiles("123m55s")
    assert str(hand) == "[777p] (9999m) [2222s] 123m55s"
    assert [str(m) for m in hand.declared] == ["[777p]", "(9999m)", "[2222s]"]


def test_groups_in_unicode_and_full_width() -> None:
    assert parse_tiles("[🀟🀟🀟]（🀏🀏🀏🀏）【🀑🀑🀑🀑】123m55s") == parse_tiles("[777p](9999m)[2222s]123m55s")


def test_tiles_of_melds_and_notation() -> None:
    run = Meld(MeldKind.RUN, Tile(Suit.S, 7))
    assert run.tiles == tiles("789s")
    assert str(run) == "789s"
    assert str(Meld(MeldKind.PAIR, Tile(Suit.Z, 5))) == "55z"
    assert notation(tiles("19m19p19s1234567z")) == "19m19p19s1234567z"
    assert notation(()) == ""
    assert len(TILES) == 34 and len(set(TILES)) == 34


@pytest.mark.parametrize(
    ("text", "code", "params"),
    [
        ("123m456m789s55s1x", "tiles_suit_unknown", {"letter": "x", "digits": "1"}),
        ("123m456m789s55s10z", "tiles_digit_zero", {"tile": "0z"}),
        ("123m456m789s55s89z", "tiles_honour_range", {"tile": "8z"}),
        ("123m456m789s55s11", "tiles_no_suit", {"digits": "11"}),
        ("123 m456m789s555s11z", "tiles_no_suit", {"digits": "123"}),
        ("12[777p]", "tiles_no_suit", {"digits": "12"}),
        ("12🀇", "tiles_no_suit", {"digits": "12"}),
        ("m123", "tiles_suit_without_digits", {"letter": "m"}),
        ("123mm", "tiles_suit_without_digits", {"letter": "m"}),
        ("[777p 123m", "tiles_bracket_unclosed", {"group": "[777p123m"}),
        ("(9999m", "tiles_bracket_unclosed", {"group": "(9999m"}),
        ("[77", "tiles_no_suit", {"digits": "77"}),
        ("777p]", "tiles_bracket_unopened", {"char": "]"}),
        ("[777p)", "tiles_bracket_mismatch", {"group": "[777p)"}),
        ("[777p[7p]]", "tiles_bracket_nested", {"group": "[777p"}),
        ("[123m]456m789s55s", "tiles_exposed_run", {"group": "[123m]"}),
        ("[🀈🀇🀉]", "tiles_exposed_run", {"group": "[123m]"}),
        ("[789s]", "tiles_exposed_run", {"group": "[789s]"}),
        ("[891s]", "tiles_group_shape", {"group": "[189s]"}),
        ("[12m3p]", "tiles_group_shape", {"group": "[12m3p]"}),
        ("[77p]", "tiles_group_shape", {"group": "[77p]"}),
        ("[77777p]", "tiles_group_shape", {"group": "[77777p]"}),
        ("[]", "tiles_group_shape", {"group": "[]"}),
        ("(777p)", "tiles_concealed_kong", {"group": "(777p)"}),
        ("(1234m)", "tiles_concealed_kong", {"group": "(1234m)"}),
        ("123m456m789s55s1z!", "tiles_char", {"char": "!"}),
        ("123m老王", "tiles_char", {"char": "老"}),
        ("🀢🀇🀈🀉", "tiles_flower", {"char": "🀢"}),
        ("🀪", "tiles_flower", {"char": "🀪"}),
    ],
)
def test_bad_notation(text: str, code: str, params: dict[str, object]) -> None:
    error = refused(text)
    assert (error.code, error.params) == (code, params)


@pytest.mark.parametrize(
    ("text", "tile", "count"),
    [
        ("11111m234m567m99p", "1m", 5),
        ("[5555p] 5p 123m 456m 789m 99s", "5p", 5),
        ("(7777z)(7777z)11m", "7z", 8),
    ],
)
def test_more_than_four_copies(text: str, tile: str, count: int) -> None:
    error = refused(text)
    assert (error.code, error.params) == ("tiles_copies", {"tile": tile, "count": count})


@pytest.mark.parametrize(
    ("text", "given", "needed", "kongs"),
    [
        ("123m456m789s55s11z", 13, 14, 0),
        ("123m456m789s555s11z1p", 15, 14, 0),
        ("[2222s] 123m456m789s5s", 14, 15, 1),
        ("(1111m)(2222m)(3333m)(4444m)5m", 17, 18, 4),
        ("[111m][222m][333m][444m][555m]", 15, 14, 0),
        ("", 0, 14, 0),
    ],
)
def test_wrong_count(text: str, given: int, needed: int, kongs: int) -> None:
    error = refused(text)
    assert error.code == "tiles_count"
    assert error.params == {"given": given, "needed": needed, "kongs": kongs}


def test_messages_name_what_is_wrong() -> None:
    assert "7z" in str(refused("(7777z)(7777z)11m"))
    assert "13" in str(refused("123m456m789s55s11z")) and "14" in str(refused("123m"))


@pytest.mark.parametrize(
    "word",
    [
        "123m",
        "[777p]",
        "(9999m)",
        "🀇🀈🀉",
        "🀄️",
        "11122233344455m",
        "123m456m789s55s",
        "[777p]123m456m789s55s",
        "123m 456p",
        "0m",
        "8z",
        "1z",
        "[777",
        "(9999",
        "123m456x",
        "[123x]",
        "[１２３ｍ]",
        "５５ｓ",
    ],
)
def test_looks_like_tiles(word: str) -> None:
    assert looks_like_tiles(word)


@pytest.mark.parametrize(
    "word",
    [
        "老王",
        "qys",
        "2",
        "pao",
        "2pao",
        "1zimo",
        "123",
        "123x",
        "qidui2",
        "mq",
        "A1",
        "@laowang",
        "",
        " ",
        "小李",
        "点炮",
        "[老王]",
        "m",
        "3pph",
    ],
)
def test_does_not_look_like_tiles(word: str) -> None:
    assert not looks_like_tiles(word)
