"""The Mini App served by the bot process: on the webhook server's own port, or (long polling)
on JIFEN_APP_LISTEN:JIFEN_APP_PORT; its API answers only signed launch data."""

from __future__ import annotations

import json
import time
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest

from bot.miniapp import auth
from tests.botprocess import free_port
from tests.e2e.conftest import TOKEN, Bots, user, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.e2e]
ALICE = user("Alice", 1101, username="alice_admin")


def launch(who: dict, start: str) -> str:
    fields = {
        "auth_date": str(int(time.time())),
        "start_param": start,
        "user": json.dumps({"id": who["id"], "first_name": who["first_name"]}),
    }
    return auth.sign(fields, TOKEN)


def check_app(base: str, token: str) -> None:
    page = httpx.get(f"{base}/app/")
    assert page.status_code == 200 and '<script type="module" src="/app/app.js">' in page.text
    assert httpx.get(f"{base}/app/app.js").status_code == 200
    refused = httpx.get(f"{base}/app/api/view", headers={"X-Jifen-Chat": token})
    assert (refused.status_code, refused.content) == (401, b"")
    headers = {"X-Telegram-Init-Data": launch(ALICE, token), "X-Jifen-Chat": token}
    view = httpx.get(f"{base}/app/api/view", headers=headers)
    assert view.status_code == 200 and view.json()["table"]["game"] == "mahjong"


def app_token(bots: Bots) -> str:
    group = bots.group()
    group.text(ALICE, "/new mahjong")
    button = group.say(ALICE, "/app")["reply_markup"]["inline_keyboard"][0][0]
    assert button["url"].startswith("https://t.me/jifen_bot/table?startapp=")
    return parse_qs(urlsplit(button["url"]).query)["startapp"][0]


def test_the_webhook_server_serves_the_app_on_its_port(bots: Bots) -> None:
    bot = bots.start(webhook=True, JIFEN_APP_NAME="table")
    check_app(f"http://127.0.0.1:{bot.env['WEBHOOK_PORT']}", app_token(bots))


def test_a_polling_bot_serves_the_app_on_its_own_port(bots: Bots) -> None:
    port = free_port()
    bots.start(JIFEN_APP_NAME="table", JIFEN_APP_LISTEN="127.0.0.1", JIFEN_APP_PORT=str(port))
    token = app_token(bots)
    wait_until(lambda: httpx.get(f"http://127.0.0.1:{port}/app/").status_code == 200, 10, "app")
    check_app(f"http://127.0.0.1:{port}", token)
