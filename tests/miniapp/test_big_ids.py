"""An id no record can have is a 400 at the edge, never a 500 from the database: an event id
of 2³¹ (past PostgreSQL's INTEGER) or 2⁶³ (past SQLite's) sent to `/app/api/undo` or
`/app/api/again`, on both databases."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import Engine

from tests.conftest import fresh_pg_database, migrated
from tests.miniapp.kit import BOB, AppKit, app_kit

BIG = (2**31, 2**63, 2**64, 10**30)
ZIMO = {"kind": "hu", "clauses": [{"winner": 1, "how": "zimo"}]}


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def any_engine(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Engine]:
    """A migrated database of its own on each backend (the kit's group id is fixed)."""
    if request.param == "sqlite":
        with migrated(f"sqlite:///{tmp_path}/jifen.sqlite3") as engine:
            yield engine
        return
    with fresh_pg_database("jifen_ids") as url, migrated(url) as engine:
        yield engine


@pytest.fixture
async def kit(any_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(any_engine):
        await kit.seat()
        await kit.open_app()
        yield kit


async def post(kit: AppKit, path: str, body: object) -> httpx.Response:
    async with kit.client() as http:
        return await http.post(f"/app/api/{path}", headers=kit.headers(BOB), json=body)


@pytest.mark.parametrize("path", ["undo", "again"])
async def test_an_event_id_no_record_can_have_is_400(kit: AppKit, path: str) -> None:
    for event in BIG:
        response = await post(kit, path, {"key": str(uuid.uuid4()), "event": event})
        assert (response.status_code, response.content) == (400, b""), event
    recorded = (await post(kit, "record", {"key": str(uuid.uuid4()), "form": ZIMO})).json()
    assert recorded["ok"], recorded  # the server still answers, and the largest id is fine:
    response = await post(kit, path, {"key": str(uuid.uuid4()), "event": 2**31 - 1})
    assert response.status_code == 200 and response.json()["ok"] is False
