"""Issue 38 in the Mini App over HTTP: History's hands carry the Record form they were made
from (✎ Edit), the preview of a correction shows each player's change before anything is
saved, saving corrects the hand in place once per key and posts it in the group, and a page
that showed an older version is told the hand changed."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy.engine import Engine

from tests.miniapp.kit import ANN, BOB, GROUP, AppKit, app_kit


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(sqlite_engine):
        await kit.seat()
        await kit.open_app()
        yield kit


async def call(kit: AppKit, path: str, body: object | None = None) -> Any:
    async with kit.client() as http:
        headers = kit.headers(BOB)
        if body is None:
            response = await http.get(f"/app/api/{path}", headers=headers)
        else:
            response = await http.post(f"/app/api/{path}", headers=headers, json=body)
    assert response.status_code == 200, response.status_code
    return response.json()


async def test_edit_from_history_previews_then_saves_once(kit: AppKit) -> None:
    await kit.say(ANN, "/hu Ann pao Bob")
    await kit.say(ANN, "/pay Cat Dan 5")
    hands = (await call(kit, "history"))["hands"]
    first = next(h for h in hands if h["no"] == 1)
    pay = next(h for h in hands if h["no"] == 2)
    clause = first["form"]["clauses"][0]
    assert (clause["winner"], clause["how"], clause["from"]) == (1, "dianpao", 2)
    assert pay["form"] == {"kind": "pay", "payer": 3, "payee": 4, "amount": "5"}
    assert not first["edited"]
    form = {**first["form"], "clauses": [{**clause, "qys": True}]}
    edit = {"event": first["id"], "seen": first["version"]}
    seq = kit.api.last_seq
    shown = await call(kit, "preview", {"form": form, "edit": edit})
    assert shown["ok"] and "#1 corrected" in "\n".join(shown["html"])
    assert kit.api.outbox_since(seq, chat_id=GROUP.id) == []  # a preview records nothing
    key = str(uuid.uuid4())
    saved = await call(kit, "record", {"key": key, "form": form, "edit": edit})
    again = await call(kit, "record", {"key": key, "form": form, "edit": edit})  # a double tap
    assert saved["ok"] and "#1 corrected" in "\n".join(saved["reply"])
    assert again["ok"] and again.get("repeated")
    posted = [e for e in kit.api.outbox_since(seq, chat_id=GROUP.id) if e.action == "sent"]
    assert len(posted) == 1 and "#1 corrected" in posted[0].plain_text
    # Another page that showed #1 before: told it changed, nothing saved
    stale = await call(kit, "record", {"key": str(uuid.uuid4()), "form": form, "edit": edit})
    assert not stale["ok"] and "changed meanwhile" in stale["error"]
    now = next(h for h in (await call(kit, "history"))["hands"] if h["no"] == 1)
    assert now["edited"] and now["form"]["clauses"][0]["qys"] and now["version"] != edit["seen"]


async def test_a_corrected_hands_versions(kit: AppKit) -> None:
    await kit.say(ANN, "/hu Ann zimo")
    await kit.say(ANN, "/edit 1 /hu Bob zimo")
    hand = (await call(kit, "history"))["hands"][0]
    assert hand["edited"]
    lines = (await call(kit, "history?versions=1"))["versions"]
    assert "/hu Ann zimo" in lines[1] and "/hu Bob zimo" in lines[3] and "(now)" in lines[3]
    assert (await call(kit, "history?versions=2"))["versions"] == []  # no #2: nothing
