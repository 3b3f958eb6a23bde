"""`/app/api/preview` and `/app/api/undo` over HTTP: the preview is the chat's reply to the same
command and records nothing; Undo follows the chat's undo rules and counts once per key; free
rounds and transfers by form; malformed ones are 400."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from sqlalchemy.engine import Engine

from tests.miniapp.kit import ANN, BOB, CAT, DAN, GROUP, AppKit, app_kit

ZIMO = {"kind": "hu", "clauses": [{"winner": 1, "how": "zimo", "qys": True, "sealed": 3}]}


@pytest.fixture
async def kit(sqlite_engine: Engine) -> AsyncIterator[AppKit]:
    async for kit in app_kit(sqlite_engine):
        await kit.seat()
        await kit.open_app()
        yield kit


async def post(kit: AppKit, path: str, user: Any, body: object) -> httpx.Response:
    async with kit.client() as http:
        return await http.post(f"/app/api/{path}", headers=kit.headers(user), json=body)


def lines(entries: list[Any]) -> list[str]:
    return "\n".join(e.text for e in entries if e.action == "sent").split("\n")


async def test_the_preview_is_the_chats_reply_and_records_nothing(kit: AppKit) -> None:
    seq = kit.api.last_seq
    preview = (await post(kit, "preview", BOB, {"form": ZIMO})).json()
    assert preview["ok"] and preview["command"] == "/hu Ann zimo qys feng Cat"
    assert kit.api.outbox_since(seq) == []
    typed = lines(await kit.say(BOB, "/hu Ann zimo qys feng Cat"))
    assert preview["html"] == typed  # who pays whom, why, each player's net: the same lines
    assert any("Cat → Ann" in line for line in typed)


async def test_undo_in_the_app_undoes_once_per_key_and_says_so_in_the_chat(kit: AppKit) -> None:
    recorded = (await post(kit, "record", BOB, {"key": str(uuid.uuid4()), "form": ZIMO})).json()
    event = recorded["event"]
    assert recorded["ok"] and isinstance(event, int) and not recorded["undone"]
    assert any("Cat → Ann" in line for line in recorded["reply"])
    seq = kit.api.last_seq
    key = str(uuid.uuid4())
    first = (await post(kit, "undo", BOB, {"key": key, "event": event})).json()
    again = (await post(kit, "undo", BOB, {"key": key, "event": event})).json()
    assert first["ok"] and "↩️" in first["reply"][0]
    assert again["ok"] and "↩️" not in again["reply"][0]  # said once, changed nothing
    posted = [e.plain_text for e in kit.api.outbox_since(seq, chat_id=GROUP.id)]
    assert len(posted) == 1 and posted[0].startswith("Bob in the app: [Undo]\n↩️")
    other = (await post(kit, "undo", CAT, {"key": str(uuid.uuid4()), "event": event})).json()
    assert other == {"ok": False, "error": "That record was already undone."}
    assert "[undone]" in "\n".join(e.plain_text for e in await kit.say(BOB, "/history"))


async def test_undo_keeps_the_chats_permission_rules(kit: AppKit) -> None:
    """A record of another table: only group admins undo it, as with its button in the chat."""
    recorded = (await post(kit, "record", BOB, {"key": str(uuid.uuid4()), "form": ZIMO})).json()
    reply = "\n".join(e.plain_text for e in await kit.say(ANN, "/new 510k"))
    assert "510K" in reply and "?" not in reply, reply  # a new table, not a question
    answer = (
        await post(kit, "undo", DAN, {"key": str(uuid.uuid4()), "event": recorded["event"]})
    ).json()
    assert answer["ok"] is False and "only group admins" in answer["error"]
    admin = (
        await post(kit, "undo", ANN, {"key": str(uuid.uuid4()), "event": recorded["event"]})
    ).json()
    assert admin["ok"], admin


async def test_a_free_round_and_a_transfer_by_form(kit: AppKit) -> None:
    await kit.say(ANN, "/new free 斗地主")
    round_ = {
        "kind": "score",
        "entries": [{"player": 1, "amount": "+30"}, {"player": 2, "amount": "-10.5"}],
        "balance": 3,
    }
    pay = {"kind": "pay", "payer": 4, "payee": 1, "amount": "5"}
    for form, command in ((round_, "/s Ann+30 Bob-10.5 Cat"), (pay, "/pay Dan Ann 5")):
        answer = (await post(kit, "record", BOB, {"key": str(uuid.uuid4()), "form": form})).json()
        assert answer["ok"] and answer["command"] == command, answer
    chat = "\n".join(e.plain_text for e in await kit.say(BOB, "/standings"))
    assert "Free points · 斗地主" in chat and "Ann +35" in chat and "Cat -19.5" in chat


@pytest.mark.parametrize(
    "form",
    [
        {"kind": "score", "entries": [{"player": 1, "amount": "30"}]},  # no sign
        {"kind": "score", "entries": [{"player": 1, "amount": "+1.234"}]},
        {"kind": "score", "entries": [{"player": 11, "amount": "+1"}]},
        {"kind": "score", "entries": [{"player": 1, "amount": "+1"}], "balance": 1},
        {"kind": "pay", "payer": 1, "payee": 2, "amount": "-5"},
        {"kind": "pay", "payer": 1, "payee": 2, "amount": 5},
    ],
)
async def test_malformed_free_forms_are_400(kit: AppKit, form: dict[str, Any]) -> None:
    response = await post(kit, "preview", BOB, {"form": form})
    assert (response.status_code, response.content) == (400, b"")


async def test_a_malformed_undo_is_400(kit: AppKit) -> None:
    for body in ({"key": "x", "event": 1}, {"key": str(uuid.uuid4()), "event": "1"}, {}):
        response = await post(kit, "undo", BOB, body)
        assert (response.status_code, response.content) == (400, b"")


async def test_a_free_tables_fifth_seat_is_recorded_by_its_name(kit: AppKit) -> None:
    """The parser numbers seats 1 to 4 only: the app names the fifth player instead."""
    await kit.say(ANN, "/new free 掼蛋")
    await kit.say(ANN, "/join 老五")  # a guest in seat 5
    form = {"kind": "score", "entries": [{"player": 5, "amount": "+8"}], "balance": 1}
    answer = (await post(kit, "record", BOB, {"key": str(uuid.uuid4()), "form": form})).json()
    assert answer["ok"] and answer["command"] == "/s 老五+8 Ann", answer


async def test_the_same_hand_again_within_two_minutes_asks_in_the_app(kit: AppKit) -> None:
    """The two-minute rule in the app: the second recording of the same form records nothing
    and answers the question; [Record again] records it once per key, posted in the chat."""
    first = (await post(kit, "record", BOB, {"key": str(uuid.uuid4()), "form": ZIMO})).json()
    seq = kit.api.last_seq
    asked = (await post(kit, "record", CAT, {"key": str(uuid.uuid4()), "form": ZIMO})).json()
    assert asked["ok"] and asked["ask"] and asked["event"] == first["event"]
    assert "Record again" in "\n".join(asked["reply"])
    assert kit.api.outbox_since(seq, chat_id=GROUP.id) == []  # nothing posted, nothing recorded
    key = str(uuid.uuid4())
    again = (await post(kit, "again", CAT, {"key": key, "event": first["event"]})).json()
    twice = (await post(kit, "again", CAT, {"key": key, "event": first["event"]})).json()
    assert again["ok"] and again["event"] not in (None, first["event"])
    assert twice["ok"] and twice["event"] == again["event"]  # the same key: recorded once
    posted = [e.plain_text for e in kit.api.outbox_since(seq, chat_id=GROUP.id)]
    assert len(posted) == 1 and posted[0].startswith("Cat in the app: [Record again]")
    history = "\n".join(e.plain_text for e in await kit.say(BOB, "/history"))
    assert history.count("/hu Ann zimo qys feng Cat") == 2
    bad = await post(kit, "again", CAT, {"key": "nope", "event": first["event"]})
    assert bad.status_code == 400
