"""`/app/api/tiles` over HTTP: the tile keyboard's words and the seats, and the preview of a hand
written as tiles (the service's dry run: the pattern, the reading, the payments, or the reason it
is refused), recording nothing; and a tiles hand in the app's history."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from tests.miniapp.kit import ANN, BOB, STRANGER, ZHANG, AppKit, app_kit


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(sqlite_engine):
        await kit.seat()
        await kit.open_app()
        yield kit


def hu(tiles: str, how: str = "zimo", **more: Any) -> dict[str, Any]:
    return {"form": {"kind": "hu", "clauses": [{"winner": 1, "how": how, "tiles": tiles, **more}]}}


async def preview(kit: AppKit, body: object, user: object = BOB) -> Any:
    async with kit.client() as http:
        response = await http.post("/app/api/tiles", headers=kit.headers(user), json=body)  # type: ignore[arg-type]
    assert response.status_code == 200, response.status_code
    return response.json()


async def test_no_launch_data_no_preview(kit: AppKit) -> None:
    async with kit.client() as http:
        for method in ("GET", "POST"):
            response = await http.request(method, "/app/api/tiles", json=hu("11122233344455m"))
            assert (response.status_code, response.content) == (401, b"")
        stranger = await http.get("/app/api/tiles", headers=kit.headers(STRANGER))
        assert stranger.status_code == 404


async def test_the_keyboard_gets_its_words_in_the_readers_language(kit: AppKit) -> None:
    async with kit.client() as http:
        en = (await http.get("/app/api/tiles", headers=kit.headers(BOB))).json()
        await kit.say(ANN, "/set lang zh")  # the chat's language: the app speaks it
        zh = (await http.get("/app/api/tiles", headers=kit.headers(ZHANG))).json()
    assert en["seats"] == ["Ann", "Bob", "Cat", "Dan"]
    assert (
        en["words"]["concealed"] == "( ) concealed kong" and zh["words"]["concealed"] == "( ) 暗杠"
    )
    assert zh["wins"]["zimo"] == "自摸" and en["words"]["count"] == "{n} of {needed} tiles"


async def test_the_preview_shows_what_the_tiles_read_as_and_records_nothing(kit: AppKit) -> None:
    seq = kit.api.last_seq
    answer = await preview(kit, hu("11122233344455m"))
    assert answer["ok"] and answer["command"] == "/hu Ann zimo 11122233344455m"
    assert answer["wins"] == [
        {
            "pattern": "pengpenghu",
            "groups": 0,
            "qingyise": True,
            "menqing": True,
            "quanqiuren": False,
            "reading": "111m 222m 333m 444m 55m",
        }
    ]
    assert "  Bob → Ann 16 · self-draw" in answer["html"]
    answer = await preview(kit, hu("[777p] 123m456m789s55s", "dianpao", **{"from": 2}))
    assert answer["wins"][0]["reading"] == "[777p] 123m 456m 789s 55s"
    assert "  Bob → Ann 2 · small hand on a discard" in answer["html"]
    assert kit.api.outbox_since(seq) == []
    assert "No hands" in "\n".join(e.plain_text for e in await kit.say(BOB, "/history"))


async def test_a_refused_hand_says_why_in_full(kit: AppKit) -> None:
    answer = await preview(kit, hu("1112223334445m6p"))
    assert answer == {
        "ok": False,
        "error": "⚠️ Ann's tiles: not a winning hand: 2m 6p do not fit four melds (pungs, "
        "kongs, runs) and a pair, nor seven pairs",
    }
    await kit.say(ANN, "/gang Ann an")
    answer = await preview(kit, hu("11122233344455m"))
    assert "1 concealed and 0 exposed kong(s) of Ann recorded with /gang" in answer["error"]
    assert len(answer["error"]) > 200  # a button's alert would cut it at 200
    await kit.say(ANN, "/set lang zh")
    answer = await preview(kit, hu("11122233344455m"), ZHANG)
    assert answer["error"].startswith("⚠️ Ann 的手牌里有 0 个暗杠")


@pytest.mark.parametrize("tiles", ["123m'; DROP", "x" * 101, 5, "0m"])
async def test_tiles_no_keyboard_makes_are_400(kit: AppKit, tiles: object) -> None:
    async with kit.client() as http:
        response = await http.post("/app/api/tiles", headers=kit.headers(BOB), json=hu(tiles))  # type: ignore[arg-type]
    assert response.status_code == 400


async def test_the_history_carries_each_winners_reading(kit: AppKit) -> None:
    await kit.say(BOB, "/hu Ann pao Bob [777p] 123m456m789s55s; Cat pao Bob qys pph")
    async with kit.client() as http:
        history = (await http.get("/app/api/history", headers=kit.headers(BOB))).json()
    (hand,) = history["hands"]
    assert hand["tiles"] == [{"name": "Ann", "reading": "[777p] 123m 456m 789s 55s"}]
