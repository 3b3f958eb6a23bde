"""Every mahjong golden case played as a /hu with the winner's tiles, through the service: the
tiles (from tests/tiles_generator.py) decide the pattern and flags, and the payments are the
case's. The chain's kongs are recorded with /gang, written inline after gangkai, or (concealed
ones) only shown in the tiles, by turns."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from scoring import Pattern, WinType, settle_hand
from service.errors import ServiceError
from service.hand_views import MahjongView, TilesView, WinView
from service.replies import Recorded
from tests.conftest import migrated
from tests.integration.helpers import Chat
from tests.tiles_generator import build_hand, write
from tests.unit.test_mahjong_golden import CASES, build, expected

NAMES = ("老王", "小李", "阿张", "Chen")  # seat 1 wins, seat 2 pays (the golden file's PAYER)
WINNER, PAYER = NAMES[0], NAMES[1]
HOW_WORD = {
    WinType.ZIMO: "zimo",
    WinType.DIANPAO: "pao",
    WinType.GANGKAI: "gangkai",
    WinType.GANGPAO: "gangpao",
    WinType.QIANGGANG: "qianggang",
    WinType.QUANQIUPAO: "quanqiupao",
    WinType.HAIDILAO: "haidi",
    WinType.HAIDIPAO: "haidipao",
    WinType.TIANHU: "tianhu",
    WinType.DIHU: "dihu",
    WinType.RENHU: "renhu",
}
#: Seed figures no tiles can make: not 门清 with three or four concealed kongs leaves no room for
#: an exposed group. Their tiles hold the kongs and are 门清, so they pay as 门清 does.
CONCEALED_BY_KONGS = {"M063", "M065", "M071", "M073"}


def wins(reply: Recorded) -> tuple[WinView, ...]:
    """The wins of a recorded mahjong hand, as its reply shows them."""
    assert isinstance(reply.view.detail, MahjongView)
    return reply.view.detail.wins


@pytest.fixture(scope="module")
def chat(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Chat]:
    path = Path(tmp_path_factory.mktemp("tiles")) / "jifen.sqlite3"
    with migrated(f"sqlite:///{path}") as engine:
        table = Chat(engine, -4242)
        table.seat("mahjong", *NAMES)
        yield table


def tiles_for(case: dict[str, Any], rng: random.Random) -> str:
    how = WinType(case["win"])
    kongs = case.get("kongs", [])
    menqing = case["menqing"] or how.always_concealed or case["id"] in CONCEALED_BY_KONGS
    built = build_hand(
        rng,
        Pattern(case["pattern"]),
        case.get("groups", 0),
        qingyise=case["qingyise"],
        menqing=menqing,
        quanqiuren=case["quanqiuren"],
        concealed_kongs=kongs.count("an"),
        exposed_kongs=kongs.count("ming"),
    )
    return write(built, rng)


def command(case: dict[str, Any], tiles: str, turn: int) -> tuple[list[str], str]:
    """The /gang commands before the /hu, and the /hu: the chain's concealed kongs recorded
    (turn 0), written after gangkai (1) or left to the tiles (2); exposed ones always recorded."""
    how = WinType(case["win"])
    kongs: list[str] = case.get("kongs", [])
    words = [WINNER, HOW_WORD[how]]
    if how.needs_discarder:
        words.append(PAYER)
    before: list[str] = []
    if how.chained and case.get("chain", 1) > 1:
        words.append(str(case["chain"]))
    if how is WinType.GANGKAI:
        if "ming" in kongs or turn == 0:
            before = [
                f"/gang {WINNER} an" if kind == "an" else f"/gang {WINNER} ming {PAYER}"
                for kind in kongs
            ]
        if turn == 1 and "ming" not in kongs:
            words += kongs
        elif len(kongs) > 1:
            words.append(str(len(kongs)))
    return before, "/hu " + " ".join([*words, tiles])


def paid(reply: Recorded) -> Counter[str]:
    out: Counter[str] = Counter()
    for payment in reply.view.payments:
        assert payment.reason == "win" and payment.payee == WINNER, payment
        assert payment.payer is not None
        out[payment.payer] += int(payment.amount)
    return out


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_golden_case_as_tiles_through_the_service(chat: Chat, case: dict[str, Any]) -> None:
    how = WinType(case["win"])
    hand = build(case)
    if case["id"] in CONCEALED_BY_KONGS:
        hand = replace(hand, wins=(replace(hand.wins[0], menqing=True),))
    want = Counter(
        {NAMES[seat]: amount for seat, amount in expected(case["pays"]).items()}
        if case["id"] not in CONCEALED_BY_KONGS
        else {NAMES[t.payer]: t.amount for t in settle_hand(hand).transfers}
    )
    rng = random.Random(case["id"])
    for turn in range(3):
        tiles = tiles_for(case, rng)
        before, hu = command(case, tiles, turn)
        dealer = PAYER if how in (WinType.DIHU, WinType.RENHU) else WINNER
        chat.say(WINNER, f"/dealer {dealer}")
        for gang in before:
            chat.say(WINNER, gang)
        reply = chat.say(PAYER, hu)
        assert isinstance(reply, Recorded), hu
        assert paid(reply) == want, hu
        (win,) = wins(reply)
        assert win.tiles is not None and win.tiles.hand and win.tiles.reading, hu


def test_the_tiles_decide_the_pattern_and_the_flags(chat: Chat) -> None:
    """The contract's examples: no pattern word, and the reply shows what the tiles read as."""
    chat.say(WINNER, f"/dealer {WINNER}")
    for hu, value, tiles in [
        (
            "/hu 老王 zimo 11122233344455m",
            {"pattern": "pengpenghu", "qingyise": True, "menqing": True, "unit": 16},
            "111m 222m 333m 444m 55m",
        ),
        (
            "/hu 老王 pao 小李 [777p] 123m456m789s55s",
            {"pattern": "jihu", "qingyise": False, "menqing": False, "value": 2},
            "[777p] 123m 456m 789s 55s",
        ),
        (
            "/hu 阿张 zimo 11335577m99p1144s",
            {"pattern": "qidui", "groups": 0, "menqing": True, "unit": 8},
            "11m 33m 55m 77m 99p 11s 44s",
        ),
    ]:
        reply = chat.say("Chen", hu)
        assert isinstance(reply, Recorded)
        (win,) = wins(reply)
        assert {key: getattr(win.value, key) for key in value} == value, hu
        assert win.tiles is not None and win.tiles.reading == tiles
        assert reply.not_concealed == ()  # the tiles said whether it was 门清


def test_words_beside_the_tiles_are_checked_and_a_lower_pattern_is_noted(chat: Chat) -> None:
    reply = chat.say(WINNER, "/hu 老王 zimo jihu qys 11122233344455m")
    assert isinstance(reply, Recorded)
    (win,) = wins(reply)
    assert win.value.pattern == "pengpenghu"
    assert win.tiles == TilesView(
        hand="11122233344455m",
        reading="111m 222m 333m 444m 55m",
        readings=4,
        written="jihu",
    )
    reply = chat.say(WINNER, "/hu 老王 pao 小李 qidui 11335577m99p1111s")
    assert isinstance(reply, Recorded)
    (win,) = wins(reply)
    assert (win.value.pattern, win.value.groups) == ("qidui", 1)
    assert win.tiles is not None and win.tiles.written is None  # 七对 said, the tiles: four


def test_several_winners_tiles_come_from_one_set(chat: Chat) -> None:
    """Each winner on one discard holds the discarded tile: it alone may be counted twice."""
    paid = chat.say(WINNER, "/hu 老王 pao 阿张 11122233344455m; 小李 pao 阿张 11m666777888999m")
    assert isinstance(paid, Recorded)  # 1m: 3 + 2, the discard counted once
    assert [w.tiles.reading for w in wins(paid) if w.tiles is not None] == [
        "111m 222m 333m 444m 55m",
        "666m 777m 888m 999m 11m",
    ]
    for hu, params in [
        (
            "/hu 老王 pao 阿张 11112222333355m; 小李 pao 阿张 55556666777788m",
            {"tile": "5m", "count": 5},
        ),
        ("/hu 老王 pao 阿张 11122233344455m; 小李 pao 阿张 111222333p444s55s", {}),
    ]:
        with pytest.raises(ServiceError) as refused:
            chat.say(WINNER, hu)
        assert refused.value.params == params, hu
