"""Issue 15, round two: the transport. Updates as Telegram sends them, through the real
webhook handler (in this process) or the polling loop's reading of a getUpdates batch."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine
from telegram import Update
from telegram.error import BadRequest, Forbidden, NetworkError, RetryAfter, TimedOut

from bot.delivery import polling, webhook
from bot.delivery.inbound import MAX_BODY, readable_body
from bot.delivery.polling import process_batch
from bot.delivery.transient import unsent
from bot.delivery.webhook import SECRET_HEADER
from bot.settings import Settings
from storage.unit_of_work import reading
from tests.emulator.api import Chat, FakeBotApi
from tests.emulator.request import EmulatorRequest
from tests.reliability.transport_kit import PLAYERS, SECRET, ZH, Hook, new_group, webhook_bot

A, B, C, D = PLAYERS

#: A poll as Telegram sent it before Bot API 9.6: PTB 22.8 requires `allows_revoting`.
OLD_POLL = {
    "id": "5301",
    "question": "Next Friday?",
    "options": [{"text": "yes", "voter_count": 1}, {"text": "no", "voter_count": 0}],
    "total_voter_count": 1,
    "is_closed": False,
    "is_anonymous": True,
    "type": "regular",
    "allows_multiple_answers": False,
}


@pytest.fixture
async def hook(sqlite_engine: Engine) -> AsyncIterator[Hook]:
    async with webhook_bot(sqlite_engine) as running:
        yield running


def hands(engine: Engine, chat_id: int) -> int:
    with engine.connect() as conn:
        found = conn.execute(
            text("SELECT count(*) FROM event WHERE chat_id = :c AND kind = 'hand'"), {"c": chat_id}
        ).scalar_one()
    return int(found)


async def seat(hook: Hook, chat: Chat) -> None:
    await hook.say(chat, A, "/new mahjong")
    for user in PLAYERS:
        await hook.say(chat, user, "/join")


# ---------------------------------------------------------------- 1. unreadable updates


async def test_polling_skips_an_unreadable_update_and_processes_its_neighbours(
    hook: Hook,
) -> None:
    chat = new_group(hook.api, -2001)
    first = hook.api.send_text(chat, A, "/new mahjong")
    poll = {"update_id": hook.api.next_update_id, "poll": OLD_POLL}
    hook.api.next_update_id += 1
    raw = [first, poll, hook.api.send_text(chat, A, "/join")]
    hook.api.take_updates()
    answer = json.dumps({"ok": True, "result": raw}).encode()
    result = json.loads(readable_body(answer))["result"]
    assert [u["update_id"] for u in result] == [u["update_id"] for u in raw]  # confirmed, all 3
    assert result[1] == {"update_id": poll["update_id"]}  # the unreadable one, emptied
    assert result[0] == raw[0] and result[2] == raw[2]
    updates = [Update.de_json(item, hook.app.bot) for item in result]
    assert await process_batch(hook.app, updates) == []
    texts = [e.plain_text for e in hook.api.outbox_since(0, chat.id)]
    assert len(texts) == 2 and "A" in texts[1]


async def test_the_polling_loop_survives_an_unreadable_update(sqlite_engine: Engine) -> None:
    """The loop itself, over the fake Bot API: the bad update between two good ones is
    confirmed (gone from the queue), the good ones answered, the loop still running."""
    async with webhook_bot(sqlite_engine) as hook:
        api = hook.api
        chat = new_group(api, -2011)
        api.send_text(chat, A, "/new mahjong")
        api._updates.append({"update_id": api.next_update_id, "poll": OLD_POLL})  # as queued
        api.next_update_id += 1
        api.send_text(chat, B, "/join")
        stop = asyncio.Event()
        loop = asyncio.create_task(polling.poll(hook.app, stop))
        for _ in range(200):
            if len(api.outbox_since(0, chat.id)) == 2:
                break
            await asyncio.sleep(0.05)
        api.send_text(chat, C, "/join")  # and the next batch still comes
        for _ in range(200):
            if len(api.outbox_since(0, chat.id)) == 3:
                break
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.wait_for(loop, 60)
        assert len(api.outbox_since(0, chat.id)) == 3
        assert api.pending_updates() == []  # all confirmed, the unreadable one too


async def test_webhook_acknowledges_an_unreadable_update(hook: Hook) -> None:
    response = await hook.post({"update_id": 90_002, "poll": OLD_POLL})
    assert response.status_code == 200  # else Telegram redelivers it forever
    chat = new_group(hook.api, -2002)
    assert (await hook.say(chat, A, "/new mahjong")).status_code == 200
    assert len(await hook.replies(chat)) == 1


# ---------------------------------------------------------------- 7. malformed bodies

MALFORMED: list[bytes | Any] = [
    b"null",
    b"[]",
    b"[1, 2]",
    b"5",
    b'"update"',
    b"{not json",
    b"[" * 5000 + b"]" * 5000,
    {"update_id": "7"},
    {"message": {"message_id": 1}},
]
#: Updates (an integer update_id, past the secret) of types jifen does not read: answered 200,
#: logged once and ignored, never 4xx (Telegram would deliver them again forever).
IGNORED: list[Any] = [
    {"update_id": 7, "message": "x"},
    {"update_id": 7, "callback_query": 5},
    {"update_id": 7, "message": {"message_id": "1", "date": 0}},
]


def text_message(chat_id: int, text_value: Any) -> dict[str, Any]:
    return {
        "update_id": 8,
        "message": {
            "message_id": 3,
            "date": 1764590000,
            "chat": {"id": chat_id, "type": "supergroup", "title": "t"},
            "from": {"id": A.id, "is_bot": False, "first_name": "A"},
            "text": text_value,
        },
    }


@pytest.mark.parametrize("body", MALFORMED, ids=lambda b: repr(b)[:30])
async def test_malformed_bodies_get_400_and_no_message(
    hook: Hook, body: Any, caplog: pytest.LogCaptureFixture
) -> None:
    response = await hook.post(body)
    assert response.status_code == 400
    assert len([r for r in caplog.records if r.name.startswith("bot.")]) == 1  # logged once
    assert "Traceback" not in response.text
    assert hook.api.outbox_since(0) == []


@pytest.mark.parametrize("body", IGNORED, ids=lambda b: repr(b)[:30])
async def test_an_update_jifen_does_not_read_gets_200_and_is_ignored(
    hook: Hook, body: Any, caplog: pytest.LogCaptureFixture
) -> None:
    response = await hook.post(body)
    assert response.status_code == 200
    assert len([r for r in caplog.records if r.name.startswith("bot.")]) == 1  # logged once
    assert hook.api.outbox_since(0) == []


@pytest.mark.parametrize("value", [5, ["/new"], {"t": 1}, 3.5, "x" * 4097, "/help " * 700])
async def test_a_text_of_the_wrong_type_or_length_gets_200_and_is_ignored(
    hook: Hook, value: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """ "/help " * 700: the issue's 4,200 characters, past Telegram's 4,096 (a real update, past
    the secret: answered 200, logged, ignored)."""
    chat = new_group(hook.api, -2003)
    response = await hook.post(text_message(chat.id, value))
    assert response.status_code == 200
    assert len([r for r in caplog.records if r.name.startswith("bot.")]) == 1
    assert hook.api.outbox_since(0) == []
    assert (await hook.say(chat, A, "/new mahjong")).status_code == 200  # the next one is read
    assert len(await hook.replies(chat)) == 1


async def test_deep_nesting_inside_a_message_gets_200_and_is_ignored(hook: Hook) -> None:
    body = text_message(-2004, "/help")
    nested: Any = {}
    for _ in range(100):
        nested = {"x": nested}
    body["message"]["extra"] = nested
    assert (await hook.post(body)).status_code == 200
    assert hook.api.outbox_since(0) == []


# ---------------------------------------------------------------- 6. bodies and the secret


async def raw_post(hook: Hook, head: dict[str, str], body: bytes) -> bytes:
    """A POST written by hand (headers may announce more than is sent); the status line."""
    host, port = hook.url.split("//")[1].split("/")[0].split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    lines = ["POST /hook HTTP/1.1", f"Host: {host}", *(f"{k}: {v}" for k, v in head.items())]
    writer.write(("\r\n".join(lines) + "\r\n\r\n").encode() + body)
    await writer.drain()
    status = await asyncio.wait_for(reader.readline(), 10)
    writer.close()
    return status


async def test_the_secret_is_checked_before_the_body_is_read(hook: Hook) -> None:
    """A forged request announcing 90 MB is refused on its headers; the body is never read."""
    huge = {"Content-Length": str(90 * 1024 * 1024), "Content-Type": "application/json"}
    for secret in ({}, {SECRET_HEADER: "wrong"}):
        assert b" 403 " in await raw_post(hook, huge | secret, b"{}")
    assert b" 413 " in await raw_post(hook, huge | {SECRET_HEADER: SECRET}, b"{}")


async def test_an_authenticated_body_over_the_cap_is_refused(hook: Hook) -> None:
    """Chunked, so no length is announced: refused once the cap is passed, not buffered."""
    chunk = b"x" * 65536
    body = b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(MAX_BODY // 65536 + 2))
    head = {SECRET_HEADER: SECRET, "Transfer-Encoding": "chunked"}
    status = await raw_post(hook, head, body + b"0\r\n\r\n")
    assert status == b"" or status.split()[1] in (b"400", b"413")  # closed, or refused
    chat = new_group(hook.api, -2006)
    assert (await hook.say(chat, A, "/help")).status_code == 200  # and the bot still answers


# ---------------------------------------------------------------- 8. the secret is mandatory


def test_a_webhook_without_a_secret_gets_one_from_the_token() -> None:
    given = Settings.given(token="123:ABC", webhook_url="https://x.example/hook")
    other = Settings.given(token="123:ABD", webhook_url="https://x.example/hook")
    assert len(given.secret_token()) == 64 and given.secret_token() != other.secret_token()
    assert given.secret_token() == Settings.given(token="123:ABC").secret_token()  # workers agree
    assert Settings.given(token="1:A", webhook_secret="mine").secret_token() == "mine"


async def test_a_forged_reset_without_the_secret_changes_nothing(hook: Hook) -> None:
    chat = new_group(hook.api, -2007)
    await seat(hook, chat)
    forged = hook.api.send_as_anonymous_admin(chat, "/reset confirm")
    hook.api.take_updates()
    assert (await hook.post(forged, secret=None)).status_code == 403
    with reading(hook.engine) as db:
        archived = db.scalar(
            text("SELECT count(*) FROM season WHERE chat_id = :c AND archived_at IS NOT NULL"),
            {"c": chat.id},
        )
    assert archived == 0


# ---------------------------------------------------------------- 4. replies before the answer


async def test_replies_go_out_before_the_answer_and_a_redelivery_records_nothing(
    hook: Hook,
) -> None:
    """The answer comes once the replies are out. Telegram delivers an update again only when
    it did not get the answer: the redelivery changes nothing, and answers with what was
    recorded (a hand's view, marked as recorded already)."""
    chat = new_group(hook.api, -2008)
    await seat(hook, chat)
    since = hook.api.last_seq
    update = hook.api.send_text(chat, ZH, "/hu A zimo")
    hook.api.take_updates()
    assert (await hook.post(update)).status_code == 200
    first = await hook.replies(chat, since)
    assert len(first) == 1 and "A +" in first[0].plain_text  # there when the answer came
    assert (await hook.post(update)).status_code == 200  # the answer was lost on the way
    again = await hook.replies(chat, since)
    assert len(again) == 2 and hands(hook.engine, chat.id) == 1
    assert "A +" in again[1].plain_text and again[1].plain_text != first[0].plain_text


@pytest.mark.filterwarnings("ignore::telegram.warnings.PTBDeprecationWarning")  # RetryAfter's
def test_a_refusal_is_for_good_a_network_failure_for_now() -> None:
    """Tried again: Telegram unreachable, timed out, still asking to wait; not: a refusal
    (a `BadRequest` is a `NetworkError` to PTB)."""
    assert (
        unsent(TimedOut())
        and unsent(NetworkError("down"))
        and unsent(RetryAfter(timedelta(seconds=3)))
    )
    assert not unsent(BadRequest("Message to be replied not found"))
    assert not unsent(Forbidden("bot was blocked")) and not unsent(None)


class Unreachable(EmulatorRequest):
    """Telegram's network layer, refusing to send messages while `down` (a network error)."""

    down = False

    async def do_request(self, url: str, method: str, *args: Any, **kwargs: Any) -> Any:
        if self.down and url.endswith("/sendMessage"):
            raise NetworkError("Telegram is unreachable")
        return await super().do_request(url, method, *args, **kwargs)


async def test_a_reply_telegram_did_not_take_goes_out_when_the_update_comes_again(
    sqlite_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telegram unreachable for a reply: the update is not acknowledged (503, after a few
    tries), recorded once; delivered again once Telegram is back, it gets its reply."""
    monkeypatch.setattr(webhook, "WEBHOOK_RETRY_FOR", 1.0)
    api = FakeBotApi()
    request = Unreachable(api)
    async with webhook_bot(sqlite_engine, api=api, request=request) as hook:
        chat = new_group(api, -2009)
        await seat(hook, chat)
        since = api.last_seq
        update = api.send_text(chat, ZH, "/hu A zimo")
        api.take_updates()
        request.down = True
        assert (await hook.post(update)).status_code == 503
        assert await hook.replies(chat, since) == [] and hands(hook.engine, chat.id) == 1
        request.down = False
        assert (await hook.post(update)).status_code == 200  # Telegram's next try
    replies = [e.plain_text for e in api.outbox_since(since, chat.id)]
    assert len(replies) == 1 and "A +" in replies[0], replies
    assert hands(sqlite_engine, chat.id) == 1


async def test_chats_replies_keep_their_order(hook: Hook) -> None:
    chat = new_group(hook.api, -2010)
    await seat(hook, chat)
    await hook.say(chat, B, "/hu A zimo")
    await hook.say(chat, B, "/undo")
    texts = [e.plain_text for e in await hook.replies(chat)]
    assert len(texts) == 7 and "A →" not in texts[5] and "Undone" in texts[6]
    assert hands(hook.engine, chat.id) == 1


async def test_fifty_members_at_once_answered_quickly(hook: Hook) -> None:
    """Fifty tables' members recording at the same moment: every webhook answer comes within
    seconds, its replies sent."""
    chats = [new_group(hook.api, -2100 - i) for i in range(50)]
    for chat in chats:
        await seat(hook, chat)
    updates = []
    for chat in chats:
        updates.append(hook.api.send_text(chat, ZH, "/hu A zimo"))
    hook.api.take_updates()
    loop = asyncio.get_running_loop()

    async def timed(update: Any) -> float:
        start = loop.time()
        assert (await hook.post(update)).status_code == 200
        return loop.time() - start

    times = await asyncio.gather(*(timed(u) for u in updates))
    assert all(hands(hook.engine, chat.id) == 1 for chat in chats)
    assert max(times) < 10
