"""The Bot API emulator as a process, driven by a real PTB Bot over loopback HTTP."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
import tornado.netutil
import tornado.web
from telegram import Bot, InlineKeyboardButton, InlineKeyboardMarkup
from telegram.error import Conflict
from tornado.httpserver import HTTPServer

from tests.emulator.server import AsyncEmulatorClient, EmulatorProcess

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(120)]

GROUP_ID = -100200
GROUP = {"id": GROUP_ID, "type": "supergroup", "title": "table"}
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + (4).to_bytes(4, "big") + (3).to_bytes(4, "big")


@pytest.fixture
def emulator() -> Iterator[EmulatorProcess]:
    """The emulator subprocess on a free port, always stopped."""
    with EmulatorProcess() as process:
        yield process


@pytest.fixture
async def client(emulator: EmulatorProcess) -> AsyncIterator[AsyncEmulatorClient]:
    """The control client."""
    async with AsyncEmulatorClient(emulator.base_url) as control:
        yield control


@pytest.fixture
async def bot(emulator: EmulatorProcess) -> AsyncIterator[Bot]:
    """A PTB bot talking HTTP to the emulator."""
    async with Bot("123:TEST", base_url=emulator.api_base_url) as tg_bot:
        yield tg_bot


class _Hook(tornado.web.RequestHandler):
    """A webhook that fails its first delivery, then records them."""

    def initialize(self, seen: list[tuple[str | None, dict[str, object]]]) -> None:
        self.seen = seen

    def post(self) -> None:
        secret = self.request.headers.get("X-Telegram-Bot-Api-Secret-Token")
        self.seen.append((secret, json.loads(self.request.body)))
        self.set_status(500 if len(self.seen) == 1 else 200)


async def _until(condition: Callable[[], bool], timeout: float = 20.0) -> None:
    """Wait (bounded) until ``condition()`` is true."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        await asyncio.sleep(0.05)


async def test_send_message_lands_in_outbox(bot: Bot, client: AsyncEmulatorClient) -> None:
    await client.set_member(GROUP, "Alice", "administrator")
    assert bot.username == "jifen_bot"
    undo = InlineKeyboardMarkup([[InlineKeyboardButton("Undo", callback_data="v1:undo:7")]])
    since = await client.last_seq()
    sent = await bot.send_message(GROUP_ID, "<b>+18</b> Alice", "HTML", reply_markup=undo)
    assert sent.text == "+18 Alice"
    [entry] = await client.wait_for_reply(GROUP_ID, since, timeout=10)
    assert (entry["plain_text"], entry["reply_markup"]) == ("+18 Alice", undo.to_dict())
    press = await client.press(GROUP, "Alice", sent.message_id, "v1:undo:7")
    assert press["callback_query"]["message"]["message_id"] == sent.message_id
    member = await bot.get_chat_member(GROUP_ID, press["callback_query"]["from"]["id"])
    assert member.status == "administrator"


async def test_multipart_upload(bot: Bot, client: AsyncEmulatorClient) -> None:
    await client.set_member(GROUP, "Alice", "member")
    photo = await bot.send_photo(GROUP_ID, PNG, caption="chart", filename="chart.png")
    assert (photo.photo[-1].width, photo.photo[-1].height) == (4, 3)
    [entry] = await client.outbox(GROUP_ID)
    assert (entry["media_kind"], entry["filename"]) == ("photo", "chart.png")
    assert base64.b64decode(entry["content_b64"]) == PNG


async def test_long_polling_returns_when_an_update_arrives(
    bot: Bot, client: AsyncEmulatorClient
) -> None:
    await client.send(GROUP, "Alice", "/new mahjong")
    [first] = await bot.get_updates(timeout=5)
    assert first.message.text == "/new mahjong"
    assert first.message.entities[0].type == "bot_command"

    async def later() -> None:
        await asyncio.sleep(0.5)
        await client.send(GROUP, "老王", "/join")

    sender = asyncio.create_task(later())
    started = time.monotonic()
    updates = await bot.get_updates(offset=first.update_id + 1, timeout=30)
    await sender
    assert [u.message.text for u in updates] == ["/join"]
    assert updates[0].effective_user.language_code == "zh"
    assert time.monotonic() - started < 20


async def test_second_poller_ends_the_first_with_conflict(
    bot: Bot, emulator: EmulatorProcess
) -> None:
    first = asyncio.create_task(bot.get_updates(timeout=20))
    await asyncio.sleep(0.5)
    async with Bot("123:TEST", base_url=emulator.api_base_url) as second_instance:
        assert await second_instance.get_updates(timeout=0) == ()
    with pytest.raises(Conflict):
        await asyncio.wait_for(first, 15)


async def test_webhook_push_with_secret_and_retry(bot: Bot, client: AsyncEmulatorClient) -> None:
    seen: list[tuple[str | None, dict[str, object]]] = []
    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    server = HTTPServer(tornado.web.Application([(r"/hook", _Hook, {"seen": seen})]))
    server.add_sockets(sockets)
    try:
        url = f"http://127.0.0.1:{sockets[0].getsockname()[1]}/hook"
        assert await bot.set_webhook(url, secret_token="s3cr3t")
        update = await client.send(GROUP, "Alice", "/standings")
        await _until(lambda: len(seen) >= 2)  # the first answer was 500: delivered again
        assert [secret for secret, _ in seen[:2]] == ["s3cr3t", "s3cr3t"]
        assert seen[1][1] == update
        info = await bot.get_webhook_info()
        assert info.url == url
        assert "500" in (info.last_error_message or "")
        for _ in range(200):
            if (await client.health())["pending_updates"] == 0:
                break
            await asyncio.sleep(0.05)
        assert (await client.health())["pending_updates"] == 0  # confirmed by the 200
        with pytest.raises(Conflict):
            await bot.get_updates()
    finally:
        server.stop()
        await server.close_all_connections()
