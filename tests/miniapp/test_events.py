"""Issue 41, points 1 and 3 over HTTP: `/app/api/events` streams the chat's mark at once and on
every move (a record in the chat or the app), on both databases; it is authenticated as every
app request; a member keeps a few streams per chat (the oldest gives way), a worker a set number
(beyond, 503); quiet streams get a comment, and end with their time, their launch data, or the
bot's stop."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from telegram import Update

from bot.cli import RedactingFormatter
from bot.miniapp import events
from bot.miniapp.events import PER_MEMBER, Streams
from bot.settings import InvalidSettings, Settings
from service.app import Place
from tests.conftest import fresh_pg_database, migrated
from tests.emulator.api import Chat as TelegramChat
from tests.miniapp.kit import ANN, BOB, CAT, DAN, MAX_AGE, STRANGER, AppKit, app_kit
from tests.miniapp.sse import query, stream

ZIMO = {"kind": "hu", "clauses": [{"winner": 1, "how": "zimo", "qys": True}]}
OTHER = TelegramChat(-100600, "supergroup", title="other table")


@contextlib.asynccontextmanager
async def served(url: str, **more: object) -> AsyncIterator[AppKit]:
    with migrated(url) as engine:
        async for kit in app_kit(engine, **more):
            await kit.seat()
            await kit.open_app()
            yield kit


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
async def kit(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[AppKit]:
    """The app on each database (PostgreSQL: one of the test's own, the group's id is fixed)."""
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path}/jifen.sqlite3"
        else:
            url = stack.enter_context(fresh_pg_database("jifen_events"))
        async with served(url) as kit:
            yield kit


@pytest.fixture
async def lite(tmp_path: Path) -> AsyncIterator[AppKit]:
    async with served(f"sqlite:///{tmp_path}/jifen.sqlite3") as kit:
        yield kit


def streams_of(kit: AppKit) -> Streams:
    [kwargs] = [r[2] for r in kit.routes if r[0] == "/app/api/events"]
    found: Streams = kwargs["streams"]
    return found


async def current(http: httpx.AsyncClient, kit: AppKit, user: object = BOB) -> str:
    mark: str = (await http.get("/app/api/view", headers=kit.headers(user))).json()["live"]  # type: ignore[arg-type]
    return mark


async def test_a_stream_sends_the_mark_at_once_and_whenever_anyone_records(kit: AppKit) -> None:
    async with kit.client() as http, stream(http, query(kit.token, kit.init_data(BOB))) as page:
        assert page.response.status_code == 200
        assert page.response.headers["Content-Type"] == "text/event-stream"
        assert page.response.headers["Cache-Control"] == "no-store"
        marks = [await page.mark()]
        assert marks[0] == await current(http, kit)
        await kit.say(CAT, "/hu Ann pao Bob")  # typed in the chat (not like the form below)
        marks.append(await page.mark(timeout=1.0))
        assert marks[-1] == await current(http, kit)
        body = {"key": str(uuid.uuid4()), "form": ZIMO}  # another phone records
        answer = await http.post("/app/api/record", headers=kit.headers(DAN), json=body)
        assert answer.json()["ok"]
        marks.append(await page.mark(timeout=1.0))
        await kit.say(ANN, "/dealer Cat")
        marks.append(await page.mark(timeout=1.0))
        assert len(set(marks)) == len(marks) and marks[-1] == await current(http, kit)
        async with stream(http, "/app/api/events", kit.headers(CAT)) as headed:
            assert headed.response.status_code == 200  # the headers of every request do too
            assert await headed.mark() == marks[-1]


async def test_a_stream_is_told_only_of_its_own_chat(lite: AppKit) -> None:
    kit = lite
    kit.api.add_chat(OTHER)
    kit.api.set_member(OTHER.id, CAT, "creator")
    for text in ("/new mahjong", "/app"):
        kit.api.send_text(OTHER, CAT, text, None)
    for update in kit.api.take_updates():
        await kit.app.process_update(Update.de_json(update, kit.app.bot))
    other = kit.app.bot_data["service"].app.token(Place(OTHER.id))
    async with (
        kit.client() as http,
        stream(http, query(other, kit.init_data(CAT, start=other))) as theirs,
        stream(http, query(kit.token, kit.init_data(CAT))) as ours,
    ):
        first = await theirs.mark()
        await ours.mark()
        await kit.say(ANN, "/hu Ann zimo")  # GROUP moves: only `ours` hears of it
        await ours.mark(timeout=1.0)
        kit.api.send_text(OTHER, CAT, "/join", None)  # a seat taken
        for update in kit.api.take_updates():
            await kit.app.process_update(Update.de_json(update, kit.app.bot))
        moved = await theirs.mark(timeout=1.0)  # the first event since: OTHER's own move
        headers = {**kit.headers(CAT), "X-Jifen-Chat": other}
        assert moved != first
        assert moved == (await http.get("/app/api/view", headers=headers)).json()["live"]


async def test_a_stream_needs_launch_data_and_a_member_of_the_token_s_chat(lite: AppKit) -> None:
    kit = lite
    async with kit.client() as http:
        cases = {
            "no launch data": (query(kit.token, ""), 401),
            "forged": (query(kit.token, kit.init_data(BOB, key="123:FORGED")), 401),
            "stale": (query(kit.token, kit.init_data(BOB, age=MAX_AGE + 60)), 401),
            "a stranger": (query(kit.token, kit.init_data(STRANGER)), 404),
            "no token": (query("", kit.init_data(BOB)), 404),
            "another token": (query("x" * 32, kit.init_data(BOB)), 404),
        }
        for what, (url, status) in cases.items():
            answer = await http.get(url)
            assert (answer.status_code, answer.content) == (status, b""), what
    assert streams_of(kit).count == 0


async def test_a_member_keeps_a_few_streams_per_chat_the_oldest_gives_way(lite: AppKit) -> None:
    kit = lite
    url = query(kit.token, kit.init_data(BOB))
    async with contextlib.AsyncExitStack() as stack, kit.client() as http:
        bobs = [await stack.enter_async_context(stream(http, url)) for _ in range(PER_MEMBER)]
        cat = await stack.enter_async_context(stream(http, query(kit.token, kit.init_data(CAT))))
        for page in (*bobs, cat):
            await page.mark()
        assert streams_of(kit).count == PER_MEMBER + 1
        newest = await stack.enter_async_context(stream(http, url))
        await newest.mark()
        assert await bobs[0].ended() == [("evicted", "")]  # that page polls from now on
        assert streams_of(kit).count == PER_MEMBER + 1
        await kit.say(ANN, "/hu Ann zimo")
        moved = {await page.mark(timeout=1.0) for page in (*bobs[1:], cat, newest)}
        assert len(moved) == 1


async def test_a_worker_streams_to_at_most_its_limit_beyond_it_pages_poll(tmp_path: Path) -> None:
    async with served(f"sqlite:///{tmp_path}/jifen.sqlite3", streams=2) as kit:
        streams = streams_of(kit)
        async with kit.client() as http:
            async with stream(http, query(kit.token, kit.init_data(BOB))) as first:
                await first.mark()
                async with stream(http, query(kit.token, kit.init_data(CAT))) as second:
                    await second.mark()
                    refused = await http.get(query(kit.token, kit.init_data(DAN)))
                    assert refused.status_code == 503 and int(refused.headers["Retry-After"]) > 0
                    mark = await current(http, kit, DAN)  # the page polls instead
                    polled = await http.get(f"/app/api/live?v={mark}", headers=kit.headers(DAN))
                    assert polled.status_code == 204
            for _ in range(100):  # the closed streams' places are free again
                if streams.count == 0:
                    break
                await asyncio.sleep(0.02)
            assert streams.count == 0
            async with stream(http, query(kit.token, kit.init_data(DAN))) as third:
                assert third.response.status_code == 200


async def test_every_stream_ends_when_the_bot_stops_and_none_opens_after(lite: AppKit) -> None:
    kit = lite
    stop = kit.app.bot_data["stop"] = asyncio.Event()  # what `jifen run` sets on SIGTERM
    async with (
        kit.client() as http,
        stream(http, query(kit.token, kit.init_data(BOB))) as bob,
        stream(http, query(kit.token, kit.init_data(CAT))) as cat,
    ):
        await bob.mark()
        await cat.mark()
        stop.set()
        assert await bob.ended(timeout=2.0) == [] and await cat.ended(timeout=2.0) == []
        assert streams_of(kit).count == 0
        late = await http.get(query(kit.token, kit.init_data(DAN)))
        assert late.status_code == 503


async def test_a_quiet_stream_has_a_comment_now_and_then_and_ends_with_its_time(
    lite: AppKit, monkeypatch: pytest.MonkeyPatch
) -> None:
    kit = lite
    monkeypatch.setattr(events, "KEEPALIVE", 0.2)
    monkeypatch.setattr(events, "LIFETIME", 1.0)
    async with kit.client() as http, stream(http, query(kit.token, kit.init_data(BOB))) as page:
        await page.mark()
        assert await page.ended(timeout=10.0) == []  # the browser opens it again by itself
        assert page.comments >= 2
    monkeypatch.setattr(events, "LIFETIME", 600.0)
    nearly = kit.init_data(BOB, age=MAX_AGE - 3)  # launch data valid for 3 s more
    async with kit.client() as http, stream(http, query(kit.token, nearly)) as page:
        await page.mark()
        assert await page.ended(timeout=10.0) == []  # coming back, it gets 401: the page polls


async def test_opening_streams_counts_against_the_member_s_poll_limit(lite: AppKit) -> None:
    kit = lite
    url = query(kit.token, kit.init_data(BOB))
    statuses = []
    async with kit.client() as http:
        for _ in range(25):
            async with stream(http, url) as page:
                statuses.append(page.response.status_code)
                if page.response.status_code == 429:
                    assert int(page.response.headers["Retry-After"]) >= 1
    assert statuses[:20] == [200] * 20 and 429 in statuses


def test_the_logs_never_show_launch_data() -> None:
    formatter = RedactingFormatter("123456:SECRET-token-abcdef")
    record = logging.LogRecord(
        "tornado.access", logging.WARNING, __file__, 1,
        "404 GET /app/api/events?chat=abc&init=auth_date%3D1%26hash%3Dff (127.0.0.1)", (), None,
    )  # fmt: skip
    line = formatter.format(record)
    assert "auth_date" not in line and "hash" not in line
    assert "/app/api/events?chat=abc&init=<launch data> (127.0.0.1)" in line


def test_the_streams_setting() -> None:
    assert Settings.given().app_streams == events.STREAMS
    assert Settings.load(JIFEN_APP_STREAMS="0").app_streams == 0  # every page polls
    for bad in ("-1", "many", "2000000"):
        with pytest.raises(InvalidSettings, match="JIFEN_APP_STREAMS must be the open pages"):
            Settings.load(JIFEN_APP_STREAMS=bad)
