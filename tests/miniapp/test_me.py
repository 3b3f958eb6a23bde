"""The Mini App's /me page: `/app/api/me` answers the launching member's own record in every
group (as /me does in the private chat), with the launch data alone; without it, 401."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import Engine

from tests.miniapp.kit import ANN, BOB, MAX_AGE, STRANGER, AppKit, app_kit


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(sqlite_engine):
        await kit.seat()
        yield kit


async def test_me_is_the_launching_members_record(kit: AppKit) -> None:
    await kit.say(ANN, "/hu Ann zimo qys")
    async with kit.client() as http:
        ann = await http.get("/app/api/me", headers={"X-Telegram-Init-Data": kit.init_data(ANN)})
        eve = await http.get("/app/api/me", headers=kit.headers(STRANGER))
        page = await http.get("/app/me.html")
        script = await http.get("/app/me.js")
    assert ann.status_code == 200
    html = ann.json()["html"]
    assert "<b>table</b>" in html and "this season +18" in html, html
    assert "No group has a player linked to you" in eve.json()["html"]
    assert page.status_code == 200 and "/app/me.js" in page.text
    assert script.status_code == 200 and "/app/api/me" in script.text


async def test_me_without_good_launch_data_is_401(kit: AppKit) -> None:
    async with kit.client() as http:
        none = await http.get("/app/api/me")
        stale = await http.get("/app/api/me", headers=kit.headers(BOB, age=MAX_AGE + 60))
    assert (none.status_code, none.content) == (401, b"")
    assert (stale.status_code, stale.content) == (401, b"")
