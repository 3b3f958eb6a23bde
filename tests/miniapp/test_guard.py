"""Issue 28, points 2, 4, 5 and 6, issue 39, point 4, and issue 37, point 15, through the HTTP
API: the app's recordings count against the member's flood limit in the chat (the chat's own
count, its polite answer) while its views have a budget of their own (`/app/api/me` too) and its
previews another (they write nothing), a refusal by a budget says so (`limited`, `retry`), a
recording asks afresh whether the user is still a member, bad requests are a 4xx and one log
line, and a key reused with another form answers with what the key recorded."""

from __future__ import annotations

import logging
import uuid
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import Engine

from bot.app import build_application
from bot.chat.flood import FloodGuard
from bot.miniapp.guard import PREVIEWS_LIMIT, PREVIEWS_WINDOW, VIEWS_LIMIT, VIEWS_WINDOW
from bot.settings import Settings
from tests.miniapp.kit import ANN, BOB, CAT, DAN, GROUP, ZHANG, AppKit, app_kit

ZIMO = {"kind": "hu", "clauses": [{"winner": 1, "how": "zimo", "qys": True}]}
BOB_ZIMO = {"kind": "hu", "clauses": [{"winner": 2, "how": "zimo"}]}
LIMIT = 20
POLITE_EN = "Slow down, please: at most 20 commands in 10 seconds each."
VIEWS_EN = f"Slow down, please: the app answers at most {VIEWS_LIMIT} requests in 10 seconds each."
PREVIEWS_EN = VIEWS_EN.replace(str(VIEWS_LIMIT), str(PREVIEWS_LIMIT))


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    """The app of a seated group, with the chat's flood guard and the app's views and
    previews budgets on a clock that stands still (the windows never slide during the test)."""
    async for kit in app_kit(sqlite_engine):
        kit.app.bot_data["flood"] = FloodGuard(limit=LIMIT, window=10.0, clock=lambda: 1000.0)
        views = FloodGuard(limit=VIEWS_LIMIT, window=VIEWS_WINDOW, clock=lambda: 1000.0)
        kit.app.bot_data["views"] = views
        previews = FloodGuard(limit=PREVIEWS_LIMIT, window=PREVIEWS_WINDOW, clock=lambda: 1000.0)
        kit.app.bot_data["previews"] = previews
        await kit.seat()  # Dan typed one command (/join) in the chat
        await kit.open_app()
        yield kit


def hands(kit: AppKit) -> int:
    return sum(1 for e in kit.api.outbox_since(0, GROUP.id) if "in the app:" in e.plain_text)


async def test_recordings_stop_at_the_chat_s_flood_limit_with_its_polite_answer(
    kit: AppKit,
) -> None:
    answers = []
    async with kit.client() as http:
        for i in range(60):  # Ann and Bob by turns (the same hand again would be asked)
            body = {"key": str(uuid.uuid4()), "form": BOB_ZIMO if i % 2 else ZIMO}
            answer = await http.post("/app/api/record", headers=kit.headers(DAN), json=body)
            assert answer.status_code == 200
            answers.append(answer.json())
    recorded = [a for a in answers if a["ok"]]
    assert len(recorded) == LIMIT - 1  # Dan's /join in the chat counted too
    refused = answers[LIMIT - 1 :]
    assert all(not a["ok"] and a["error"].startswith(POLITE_EN) for a in refused)
    assert hands(kit) == LIMIT - 1  # only those were posted in the group
    # The chat's count is the same one; Dan was warned already (in the app): dropped.
    assert await kit.say(DAN, "/hu Ann zimo") == []
    standings = (await kit.say(CAT, "/standings"))[0].plain_text  # 10 of Ann's, 9 of Bob's
    assert "1. Ann +153\n2. Bob +21\n3. Cat -87\n4. Dan -87" in standings


async def test_views_have_a_budget_of_their_own_and_answer_429_in_the_member_s_language(
    kit: AppKit,
) -> None:
    async with kit.client() as http:
        statuses = []
        for _ in range(VIEWS_LIMIT):
            view = await http.get("/app/api/view", headers=kit.headers(BOB))
            statuses.append(view.status_code)
        assert statuses == [200] * VIEWS_LIMIT
        # a typed command is still the member's: the app's looks used none of them
        assert (await kit.say(BOB, "/standings"))[0].plain_text.startswith("Standings of")
        over = await http.get("/app/api/view", headers=kit.headers(BOB))
        check = await http.post("/app/api/check", headers=kit.headers(BOB), json={"form": ZIMO})
        zh = [
            await http.get("/app/api/history", headers=kit.headers(ZHANG))
            for _ in range(VIEWS_LIMIT + 1)
        ]
        body = {"key": str(uuid.uuid4()), "form": ZIMO}
        recorded = await http.post("/app/api/record", headers=kit.headers(BOB), json=body)
    assert over.status_code == 429 and over.json()["error"].startswith(VIEWS_EN)
    assert int(over.headers["Retry-After"]) >= 1
    assert check.status_code == 200 and check.json()["ok"]  # a check is a preview: its own
    assert [r.status_code for r in zh] == [200] * VIEWS_LIMIT + [429]  # Zhang's own budget
    assert zh[-1].json()["error"].startswith("请慢一点")
    assert recorded.json()["ok"], recorded.json()  # a recording is a command: not a view
    assert hands(kit) == 1


async def test_previews_have_a_budget_of_their_own_apart_from_commands_and_views(
    kit: AppKit,
) -> None:
    """Issue 37, point 15: ~21 taps in 7 s on the tile keyboard asked for as many previews and
    used up the member's commands. Previews (the Record tab's, the tile keyboard's, checks)
    write nothing: a budget of their own, neither the chat's commands nor the views'."""
    tiles = {"kind": "hu", "clauses": [{"winner": 2, "how": "zimo", "tiles": "11122233344455m"}]}
    paths = ("/app/api/preview", "/app/api/tiles", "/app/api/check")
    async with kit.client() as http:
        answers = [
            await http.post(paths[i % 3], headers=kit.headers(DAN), json={"form": tiles})
            for i in range(PREVIEWS_LIMIT)
        ]
        assert all(a.status_code == 200 and a.json()["ok"] for a in answers)
        assert (await http.get("/app/api/view", headers=kit.headers(DAN))).status_code == 200
        # Dan's commands are untouched: a record and a typed hand go through
        body = {"key": str(uuid.uuid4()), "form": ZIMO}
        recorded = await http.post("/app/api/record", headers=kit.headers(DAN), json=body)
        assert recorded.json()["ok"] and not recorded.json().get("limited")
        assert "#2" in (await kit.say(DAN, "/hu Bob zimo"))[0].plain_text
        over = await http.post("/app/api/preview", headers=kit.headers(DAN), json={"form": tiles})
        cat = await http.post("/app/api/preview", headers=kit.headers(CAT), json={"form": tiles})
        cat_zimo = {"kind": "hu", "clauses": [{"winner": 3, "how": "zimo"}]}
        body = {"key": str(uuid.uuid4()), "form": cat_zimo}
        still = await http.post("/app/api/record", headers=kit.headers(DAN), json=body)
    refusal = over.json()
    assert over.status_code == 200 and refusal["ok"] is False
    assert refusal["limited"] is True and refusal["retry"] >= 1  # the page waits that long
    assert refusal["error"].startswith(PREVIEWS_EN)
    assert cat.json()["ok"]  # Cat's own budget
    assert still.json()["ok"] and not still.json()["repeated"]  # over the previews: records
    assert hands(kit) == 2  # the app's two (the typed one is not "in the app")


async def test_a_recording_over_the_flood_limit_is_marked_limited(kit: AppKit) -> None:
    async with kit.client() as http:
        answers = []
        for i in range(LIMIT):  # Dan's /join in the chat counted too: the last is over
            body = {"key": str(uuid.uuid4()), "form": BOB_ZIMO if i % 2 else ZIMO}
            answer = await http.post("/app/api/record", headers=kit.headers(DAN), json=body)
            answers.append(answer.json())
    assert all(a["ok"] and "limited" not in a for a in answers[:-1])
    assert answers[-1]["limited"] is True and answers[-1]["retry"] >= 1
    assert answers[-1]["error"].startswith(POLITE_EN)


async def test_the_me_page_has_a_views_budget_too(kit: AppKit) -> None:
    init = {"X-Telegram-Init-Data": kit.init_data(BOB)}
    async with kit.client() as http:
        statuses = [
            (await http.get("/app/api/me", headers=init)).status_code
            for _ in range(VIEWS_LIMIT + 5)
        ]
        other = await http.get("/app/api/me", headers={"X-Telegram-Init-Data": kit.init_data(CAT)})
    assert statuses == [200] * VIEWS_LIMIT + [429] * 5
    assert other.status_code == 200  # Cat's own budget


def test_the_bot_keeps_a_views_budget_beside_the_flood_limit_and_off_with_it(
    sqlite_engine: Engine,
) -> None:
    on = build_application(Settings.given(token="1:T", flood=(20, 10.0)), engine=sqlite_engine)
    views, previews = on.bot_data["views"], on.bot_data["previews"]
    assert (views.limit, views.window) == (VIEWS_LIMIT, VIEWS_WINDOW)
    assert (previews.limit, previews.window) == (PREVIEWS_LIMIT, PREVIEWS_WINDOW)
    assert len({id(views), id(previews), id(on.bot_data["flood"])}) == 3
    off = build_application(Settings.given(token="1:T", flood=None), engine=sqlite_engine)
    assert not {"views", "previews", "flood"} & set(off.bot_data)


async def test_a_removed_member_cannot_record_though_the_cache_still_knows_him(
    kit: AppKit,
) -> None:
    async with kit.client() as http:
        assert (await http.get("/app/api/view", headers=kit.headers(DAN))).status_code == 200
        kit.api.set_member(GROUP.id, DAN, "left")  # removed from the group a moment later
        body = {"key": str(uuid.uuid4()), "form": ZIMO}
        answer = await http.post("/app/api/record", headers=kit.headers(DAN), json=body)
        assert (answer.status_code, answer.content) == (404, b"")
        assert hands(kit) == 0
        # the fresh answer is remembered: the views are closed to him now too
        assert (await http.get("/app/api/view", headers=kit.headers(DAN))).status_code == 404
        body = {"key": str(uuid.uuid4()), "form": ZIMO}
        answer = await http.post("/app/api/record", headers=kit.headers(ANN), json=body)
        assert answer.json()["ok"]  # a member still records


def refusals(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name.startswith("bot.")]


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("POST", "/app/api/record", "deep"),
        ("POST", "/app/api/check", "deep"),
        ("POST", "/app/api/check", "nested"),
        ("GET", "/app/api/history?n=²", None),
        ("GET", "/app/api/history?n=٣", None),
        ("GET", "/app/api/history?season=²", None),
        ("GET", "/app/api/view?season=²", None),
        ("GET", "/app/api/view?season=1" + "0" * 40, None),
    ],
)
async def test_bad_requests_get_a_4xx_and_one_log_line(
    kit: AppKit, caplog: pytest.LogCaptureFixture, method: str, path: str, body: str | None
) -> None:
    content = None
    if body == "deep":  # past the JSON parser's recursion limit
        content = b'{"key": "%s", "form": ' % str(uuid.uuid4()).encode() + b"[" * 30_000
        content += b"]" * 30_000 + b"}"
    elif body == "nested":  # parsed, but deeper than any form
        content = b'{"form": {"kind": "hu", "clauses": ' + b"[" * 200 + b"]" * 200 + b"}}"
    caplog.clear()
    with caplog.at_level(logging.INFO):
        async with kit.client() as http:
            response = await http.request(method, path, headers=kit.headers(BOB), content=content)
    assert response.status_code == 400
    assert len(refusals(caplog)) == 1, [r.getMessage() for r in caplog.records]
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert hands(kit) == 0


async def test_a_nul_in_a_page_s_path_is_a_400_for_anyone(
    kit: AppKit, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.clear()
    with caplog.at_level(logging.INFO):
        async with kit.client() as http:
            for path in ("/app/app.js%00.html", "/app/%00", "/app/app%0a.js"):
                assert (await http.get(path)).status_code == 400  # no launch data at all
            assert (await http.get("/app/app.js")).status_code == 200
    assert len(refusals(caplog)) == 3
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]


async def test_a_key_reused_with_another_form_answers_with_what_it_recorded(
    kit: AppKit,
) -> None:
    key = str(uuid.uuid4())
    async with kit.client() as http:
        first = await http.post(
            "/app/api/record", headers=kit.headers(DAN), json={"key": key, "form": ZIMO}
        )
        again = await http.post(
            "/app/api/record", headers=kit.headers(DAN), json={"key": key, "form": BOB_ZIMO}
        )
        view = (await http.get("/app/api/view", headers=kit.headers(DAN))).json()
    assert first.json()["command"] == "/hu Ann zimo qys" and not first.json()["repeated"]
    assert again.json()["ok"] and again.json()["repeated"]
    assert again.json()["command"] == "/hu Ann zimo qys"  # what the key recorded
    assert again.json()["html"] == first.json()["html"]
    assert [h["text"] for h in view["history"]] == ["/hu Ann zimo qys"]
    assert hands(kit) == 1


def test_the_app_s_warning_is_the_chat_s() -> None:
    from bot.chat.flood import Verdict
    from bot.chat.flood_gate import FLOOD_WARNING
    from bot.miniapp import guard

    assert guard.FLOOD_WARNING == FLOOD_WARNING and Verdict.ALLOW == "allow"
