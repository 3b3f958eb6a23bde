"""Issue 39, point 1, end to end (the bot as a process, the Bot API emulator): a group's data
reaches only its current members. After a member is removed from a group (kicked) or leaves it,
her private /me and the Mini App's /me page no longer show that group — its title, whom she
played with there, the head-to-head — while her other groups stay; back in the group, it shows
again (nothing was deleted)."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from bot.miniapp import auth
from tests.botprocess import free_port
from tests.e2e.conftest import TOKEN, Bots, private, user, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(240)]

ALICE, BOB, CAROL, DAVE = (
    user("Alice", 3201),
    user("Bob", 3202),
    user("Carol", 3203),
    user("Dave", 3204),
)
ERIN, FRANK = user("Erin", 3205), user("Frank", 3206)


def private_me(bots: Bots, member: dict) -> str:
    """/me in the member's private chat with the bot: the reply's text."""
    return private(bots, member).text(member, "/me")


def app_me(port: int, member: dict) -> str:
    """The Mini App's /me page for the member (launch data signed as Telegram signs it)."""
    fields = {
        "auth_date": str(int(time.time())),
        "user": json.dumps({"id": member["id"], "first_name": member["first_name"]}),
    }
    headers = {"X-Telegram-Init-Data": auth.sign(fields, TOKEN)}
    answer = httpx.get(f"http://127.0.0.1:{port}/app/api/me", headers=headers, timeout=30)
    assert answer.status_code == 200, answer
    return str(answer.json()["html"])


def test_a_removed_member_s_me_no_longer_shows_the_group(bots: Bots) -> None:
    port = free_port()
    bots.start(JIFEN_APP_NAME="table", JIFEN_APP_LISTEN="127.0.0.1", JIFEN_APP_PORT=str(port))
    wait_until(lambda: httpx.get(f"http://127.0.0.1:{port}/app/").status_code == 200, 10, "app")
    friday, club = bots.group("Friday mahjong"), bots.group("510K club")
    friday.text(ALICE, "/new mahjong")
    for member in (ALICE, BOB, CAROL, DAVE):
        friday.text(member, "/join")
    friday.text(BOB, "/hu Alice zimo qys pph")  # Alice +36; she plays most with Bob, Carol…
    club.text(ALICE, "/new 510k")
    for member in (ALICE, DAVE, ERIN, FRANK):
        club.text(member, "/join")
    club.text(ERIN, "/r Alice=30 Dave=20 Erin=40 Frank=10 out Alice Erin")

    before = private_me(bots, ALICE)
    assert "Friday mahjong" in before and "510K club" in before, before
    assert "Bob" in before and "Carol" in before  # plays most with, head-to-head
    assert "Friday mahjong" in app_me(port, ALICE)

    bots.client.set_member(friday.chat, ALICE, "kicked")  # removed from the group
    bots.client.set_member(friday.chat, BOB, "left")  # left it himself
    for member in (ALICE, BOB):
        for shown in (private_me(bots, member), app_me(port, member)):
            assert "Friday mahjong" not in shown, shown
            assert "Carol" not in shown and "+36" not in shown, shown
    assert "510K club" in private_me(bots, ALICE) and "510K club" in app_me(port, ALICE)
    assert "No group has a player linked to you" in private_me(bots, BOB)
    assert "Friday mahjong" in private_me(bots, CAROL)  # still a member: unchanged

    bots.client.set_member(friday.chat, ALICE, "member")  # added back
    assert "Friday mahjong" in private_me(bots, ALICE) and "+36" in private_me(bots, ALICE)
