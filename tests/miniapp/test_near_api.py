"""Near repeats in the Mini App (issue 37, point 5): a form of the same winner and way with a
flag less, recorded within two minutes, asks as the chat does; the answer records the new
form's content once, whichever key or member sends it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import Engine

from tests.miniapp.kit import BOB, CAT, DAN, AppKit, app_kit
from tests.miniapp.test_record_api import ZIMO, post

PLAIN = {"kind": "hu", "clauses": [{"winner": 1, "how": "zimo", "sealed": 3}]}


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(sqlite_engine):
        await kit.seat()
        await kit.open_app()
        yield kit


async def test_a_near_repeat_asks_in_the_app_and_its_answer_records_the_new_form(
    kit: AppKit,
) -> None:
    first = (await post(kit, "record", BOB, {"key": str(uuid.uuid4()), "form": ZIMO})).json()
    asked = (await post(kit, "record", CAT, {"key": str(uuid.uuid4()), "form": PLAIN})).json()
    assert asked["ok"] and asked["ask"] and asked["event"] == first["event"]
    assert asked["near"] is not None and "leaves out qys" in "\n".join(asked["reply"])
    body = {"event": first["event"], "near": asked["near"]}
    got = (await post(kit, "again", CAT, {"key": str(uuid.uuid4()), **body})).json()
    late = (await post(kit, "again", DAN, {"key": str(uuid.uuid4()), **body})).json()
    assert got["ok"] and got["event"] not in (None, first["event"])
    assert late["ok"] and late["event"] == got["event"]  # another member: recorded once
    history = "\n".join(e.plain_text for e in await kit.say(BOB, "/history"))
    assert "/hu Ann zimo feng Cat" in history and "/hu Ann zimo qys feng Cat" in history
