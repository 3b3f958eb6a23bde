"""`/app/api/…` over HTTP: who gets in (launch data, token, membership), what the pages read,
recording checked at each tap and recorded once per key, posted in the group."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import Engine
from telegram import Update

from service import insight
from service.app import Place
from service.requests import Chart
from storage.unit_of_work import reading
from tests.miniapp.kit import ANN, BOB, CAT, DAN, GROUP, MAX_AGE, STRANGER, ZHANG, AppKit, app_kit

ZIMO = {"kind": "hu", "clauses": [{"winner": 1, "how": "zimo", "qys": True}]}
PATHS = ("view", "history", "check", "preview", "record", "undo", "again", "nothing-here")


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(sqlite_engine):
        await kit.seat()
        await kit.open_app()
        yield kit


async def call(kit: AppKit, path: str, headers: dict[str, str], body: object = None) -> tuple:
    async with kit.client() as http:
        if body is None and path in ("view", "history", "nothing-here"):
            response = await http.get(f"/app/api/{path}", headers=headers)
        else:
            response = await http.post(f"/app/api/{path}", headers=headers, json=body or {})
    return response.status_code, response.content


@pytest.mark.parametrize("path", PATHS)
async def test_missing_forged_or_stale_launch_data_is_401_with_an_empty_body(
    kit: AppKit, path: str
) -> None:
    good = kit.headers(BOB)
    forged = kit.headers(BOB, key="123:NOT-THE-TOKEN")
    tampered = {**good, "X-Telegram-Init-Data": good["X-Telegram-Init-Data"].replace("Bob", "Ann")}
    stale = kit.headers(BOB, age=MAX_AGE + 60)
    for headers in ({"X-Jifen-Chat": kit.token}, forged, tampered, stale):
        assert await call(kit, path, headers, ZIMO if path == "record" else None) == (401, b"")


async def test_a_non_member_or_an_unknown_token_gets_404_with_an_empty_body(kit: AppKit) -> None:
    assert await call(kit, "view", kit.headers(STRANGER)) == (404, b"")
    assert await call(kit, "view", {**kit.headers(BOB), "X-Jifen-Chat": "x" * 32}) == (404, b"")
    assert await call(kit, "view", {**kit.headers(BOB), "X-Jifen-Chat": str(GROUP.id)}) == (
        404,
        b"",
    )


async def test_the_token_is_random_and_stable_per_chat(kit: AppKit) -> None:
    assert str(GROUP.id).lstrip("-") not in kit.token and len(kit.token) >= 32
    assert await kit.open_app() == kit.token


async def test_the_view_has_every_page_in_the_readers_language(kit: AppKit) -> None:
    await kit.say(CAT, "/hu Ann zimo qys")
    async with kit.client() as http:
        en = (await http.get("/app/api/view", headers=kit.headers(BOB))).json()
        await kit.say(ANN, "/set lang zh")  # the chat's language: the app speaks it
        zh = (await http.get("/app/api/view", headers=kit.headers(ZHANG))).json()
    assert en["standings"]["sections"][0]["rows"][0] == {"name": "Ann", "amount": "+18"}
    [series] = en["chart"]
    assert series["hands"] == [0, 1] and series["lines"][0] == {"name": "Ann", "values": [0, 18]}
    assert "Bob → Ann 6" in en["history"][0]["html"][1:] or any(
        "Bob → Ann 6" in line for line in en["history"][0]["html"]
    )
    assert "Ann" in en["settle"] and en["table"]["seats"] == ["Ann", "Bob", "Cat", "Dan"]
    [season] = en["seasons"]
    assert season["number"] == 1 and not season["archived"] and "1 hands" in season["html"]
    assert en["strings"]["page"]["standings"] == "Standings"
    assert zh["lang"] == "zh" and zh["strings"]["page"]["standings"] == "积分榜"
    assert "自摸" in zh["strings"]["win"]["zimo"]


async def test_a_tap_that_contradicts_is_refused_with_the_reason(kit: AppKit) -> None:
    from_self = {"kind": "hu", "clauses": [{"winner": 1, "how": "dianpao", "from": 1}]}
    bad_kong = {"kind": "gang", "player": 2, "type": "ming", "from": 2}
    seq = kit.api.last_seq
    async with kit.client() as http:
        for form in (from_self, bad_kong):
            answer = await http.post(
                "/app/api/check", headers=kit.headers(BOB), json={"form": form}
            )
            assert answer.status_code == 200 and answer.json()["ok"] is False
            assert answer.json()["error"]
        fine = await http.post("/app/api/check", headers=kit.headers(BOB), json={"form": ZIMO})
    assert fine.json()["ok"] and fine.json()["command"] == "/hu Ann zimo qys"
    async with kit.client() as http:  # the check recorded nothing
        view = (await http.get("/app/api/view", headers=kit.headers(BOB))).json()
    assert view["history"] == [] and view["table"]["kongs"] == []
    assert kit.api.outbox_since(seq) == []


async def test_a_recording_counts_once_per_key_and_is_posted_in_the_group(kit: AppKit) -> None:
    seq = kit.api.last_seq
    key = str(uuid.uuid4())
    async with kit.client() as http:
        first = await http.post(
            "/app/api/record", headers=kit.headers(DAN), json={"key": key, "form": ZIMO}
        )
        again = await http.post(
            "/app/api/record", headers=kit.headers(DAN), json={"key": key, "form": ZIMO}
        )
        view = (await http.get("/app/api/view", headers=kit.headers(DAN))).json()
    assert first.json()["ok"] and not first.json()["repeated"]
    assert again.json()["ok"] and again.json()["repeated"]
    assert len(view["history"]) == 1
    assert view["standings"]["sections"][0]["rows"][0] == {"name": "Ann", "amount": "+18"}
    [posted] = kit.api.outbox_since(seq, chat_id=GROUP.id)
    assert posted.plain_text.startswith("Dan in the app: /hu Ann zimo qys\n")
    undo = posted.buttons[0][0]["callback_data"]  # its Undo button works as a typed hand's
    seq = kit.api.last_seq
    pressed = kit.api.press_button(GROUP, DAN, posted.message_id, undo)
    kit.api.take_updates()
    await kit.app.process_update(Update.de_json(pressed, kit.app.bot))
    assert any("Undone" in e.plain_text for e in kit.api.outbox_since(seq))
    typed = (await kit.say(CAT, "/hu Ann zimo qys"))[0]  # the same hand typed: the same lines
    hint = "ℹ️"  # (the 门清 hint came with the first: once a season)
    lines = [line for line in posted.plain_text.split("\n")[2:] if not line.startswith(hint)]
    assert lines == typed.plain_text.split("\n")[1:]


async def test_kongs_and_a_510k_report_are_recorded_by_form(kit: AppKit) -> None:
    async with kit.client() as http:
        kong = {"kind": "gang", "player": 2, "type": "an"}
        answer = await http.post(
            "/app/api/record",
            headers=kit.headers(BOB),
            json={"key": str(uuid.uuid4()), "form": kong},
        )
        view = (await http.get("/app/api/view", headers=kit.headers(BOB))).json()
    assert answer.json()["command"] == "/gang Bob an"
    assert any("Bob" in line for line in view["table"]["kongs"])
    await kit.say(ANN, "/new 510k confirm")  # the pending kong is dropped, confirmed
    await kit.say(ANN, "/seats Ann Bob Cat Dan")
    report = {
        "kind": "report",
        "entries": [{"player": p, "table": t} for p, t in ((1, 30), (2, 20), (3, 40), (4, 10))],
        "out": [1, 3],
    }
    async with kit.client() as http:
        answer = await http.post(
            "/app/api/record",
            headers=kit.headers(BOB),
            json={"key": str(uuid.uuid4()), "form": report},
        )
    assert answer.json()["ok"]
    assert answer.json()["command"] == "/r Ann=30 Bob=20 Cat=40 Dan=10 out Ann Cat"


async def test_malformed_forms_and_keys_are_400(kit: AppKit) -> None:
    async with kit.client() as http:
        for body in (
            {"key": "nope", "form": ZIMO},
            {"key": str(uuid.uuid4()), "form": {"kind": "x"}},
        ):
            response = await http.post("/app/api/record", headers=kit.headers(BOB), json=body)
            assert (response.status_code, response.content) == (400, b"")


async def test_the_page_and_its_assets_are_served_small(kit: AppKit) -> None:
    async with kit.client() as http:
        total = 0
        for asset in ("", "app.js", "app.css", "chart.js", "record.js", "telegram.js", "dom.js"):
            response = await http.get(f"/app/{asset}")
            assert response.status_code == 200
            total += len(response.content)
    assert total < 300_000


async def test_the_chart_is_the_one_of_chart_and_follows_new_hands_and_undos(
    kit: AppKit,
) -> None:
    async def chart() -> dict[str, object]:
        async with kit.client() as http:
            view = (await http.get("/app/api/view", headers=kit.headers(BOB))).json()
        [series] = view["chart"]
        return {"hands": series["hands"], "Ann": series["lines"][0]["values"]}

    for how in ("zimo", "pao Bob", "pao Cat"):  # three hands (a like one would be asked)
        await kit.say(CAT, f"/hu Ann {how}")
    first = await chart()
    assert first["hands"] == [0, 1, 2, 3] and first["Ann"] == sorted(first["Ann"])  # type: ignore[type-var]
    await kit.say(CAT, "/hu Ann zimo qys")  # read on its own
    more = await chart()
    assert more["hands"] == [0, 1, 2, 3, 4] and more["Ann"][:4] == first["Ann"]  # type: ignore[index]
    await kit.say(CAT, "/undo")
    assert await chart() == first
    service = kit.app.bot_data["service"]
    with reading(service.engine) as db:
        [drawn] = insight.chart_data(db, GROUP.id, Chart()).series  # what /chart draws
    assert first == {"hands": list(drawn.at), "Ann": [float(v) for v in drawn.lines[0].values]}


async def test_the_token_follows_a_group_that_becomes_a_supergroup(kit: AppKit) -> None:
    service = kit.app.bot_data["service"]
    assert service.app.place(kit.token) == Place(GROUP.id, 0)
    early = service.app.token(Place(-100999))  # /app in the supergroup before the move arrived
    service.move_chat(GROUP.id, -100999)
    assert service.app.place(kit.token) == Place(-100999, 0)  # the group's link still opens it
    assert service.app.place(early) is None
    assert service.app.token(Place(-100999)) == kit.token
    assert service.app.token(Place(-100999, 7)) != kit.token  # a forum topic has its own


async def test_an_archived_season_is_read_by_its_number(kit: AppKit) -> None:
    await kit.say(CAT, "/hu Ann zimo qys")
    await kit.say(ANN, "/reset confirm")
    async with kit.client() as http:
        now = (await http.get("/app/api/view", headers=kit.headers(BOB))).json()
        old = (await http.get("/app/api/view?season=1", headers=kit.headers(BOB))).json()
        hands = (await http.get("/app/api/history?season=1", headers=kit.headers(BOB))).json()
    assert [s["archived"] for s in now["seasons"]] == [True, False]
    assert now["history"] == [] and now["chart"] == []
    assert old["standings"]["season"] == 1 and old["standings"]["archived"]
    assert old["standings"]["sections"][0]["rows"][0] == {"name": "Ann", "amount": "+18"}
    assert len(hands["hands"]) == 1 and len(old["chart"]) == 1


async def test_undo_as_a_reply_finds_a_hand_the_app_posted(kit: AppKit) -> None:
    """The app's message of a hand carries its Undo button: /undo replying to it undoes that
    hand, though a typed hand came after it."""
    seq = kit.api.last_seq
    async with kit.client() as http:
        answer = await http.post(
            "/app/api/record",
            headers=kit.headers(DAN),
            json={"key": str(uuid.uuid4()), "form": ZIMO},
        )
    assert answer.json()["ok"]
    [posted] = kit.api.outbox_since(seq, chat_id=GROUP.id)
    await kit.say(CAT, "/hu Bob zimo")  # a later hand: a bare /undo would take this one
    seq = kit.api.last_seq
    kit.api.send_text(GROUP, CAT, "/undo", reply_to=posted.message_id)
    for update in kit.api.take_updates():
        await kit.app.process_update(Update.de_json(update, kit.app.bot))
    undone, spent = kit.api.outbox_since(seq, chat_id=GROUP.id)
    assert undone.plain_text.startswith("↩️ Undone: hand #1 — /hu Ann zimo qys")
    assert (spent.action, spent.message_id) == ("edited", posted.message_id)  # its Undo: used
    assert spent.buttons == [[{"text": "↩️ Undone", "disabled": {}}]]
    standings = "\n".join(e.plain_text for e in await kit.say(CAT, "/standings"))
    assert "Bob +9" in standings and "Ann -3" in standings
