"""Issue 40, points 3-5, with the bot as a process against the emulator over HTTP: the menus
each role sees after start (and after a second worker starts beside the first), /standings as
a Rich Message table and as text once the server refuses tables, and a night of guest mode in
a chat that never added the bot (a redelivered guest update recorded once). Webhook mode: a
redelivery is posted to the bot as Telegram posts it."""

from __future__ import annotations

from fractions import Fraction

import httpx
import pytest

from tests.e2e.conftest import TOKEN, WEBHOOK_SECRET, Bots, Group, balances, post_update, user

pytestmark = [pytest.mark.slow, pytest.mark.e2e, pytest.mark.timeout(120)]

ANN, BOB, CAT = user("Ann", 2001), user("Bob", 2002), user("Cat", 2003)
WANG = user("老王", 2101, lang="zh")


def commands(bots: Bots, scope: str, lang: str | None) -> list[str]:
    """The menu Telegram shows a scope in a language (asked of the emulator's Bot API)."""
    params = {"scope": {"type": scope}} | ({"language_code": lang} if lang else {})
    url = f"{bots.emulator.api_base_url}{TOKEN}/getMyCommands"
    answer = httpx.post(url, json=params, timeout=10).json()
    assert answer["ok"], answer
    return [c["command"] for c in answer["result"]]


def sent(group: Group, since: int) -> list[dict]:
    entries = group.wait_entries(since, lambda es: any(e["action"] == "sent" for e in es))
    return [e for e in entries if e["action"] == "sent"]


def test_menus_tables_and_a_guest_night(bots: Bots) -> None:
    bots.client.rich(True)
    bots.start(webhook=True)
    members = commands(bots, "all_group_chats", None)
    admins = commands(bots, "all_chat_administrators", "zh")
    assert {"hu", "s", "standings", "settle"} <= set(members)
    assert not {"reset", "set", "merge", "link"} & set(members)
    assert admins[: len(members)] == members and {"reset", "set", "merge", "link"} <= set(admins)
    assert commands(bots, "all_private_chats", "zh")[:1] == ["me"]
    worker = bots.start(webhook=True)  # a second worker: the same menus, nothing sent twice
    assert commands(bots, "all_group_chats", None) == members

    group = bots.group("table night")
    group.text(ANN, "/new free")
    group.text(ANN, "/seats Ann Bob Cat")
    group.text(ANN, "/s Ann+30 Bob-10 Cat")
    table = group.say(CAT, "/standings")
    assert table["media_kind"] == "rich", table
    assert "1 | Ann | +30" in table["plain_text"].splitlines()
    bots.client.rich(False)  # the server no longer takes tables: text, the same content
    text = group.text(CAT, "/standings")
    assert balances(text) == {"Ann": 30, "Bob": -10, "Cat": -20}

    outside = bots.group("never added the bot")  # the bot is no member here
    since = outside.mark()
    update = bots.client.guest(outside.chat, WANG, "@jifen_bot 老王+30 小李-30 阿张")
    [answer] = sent(outside, since)
    assert answer["media_kind"] == "guest" and "老王 +30" in answer["plain_text"]
    since = outside.mark()
    again = post_update(worker.env["WEBHOOK_URL"], update, WEBHOOK_SECRET)
    assert again.status_code == 200  # Telegram redelivers it: recorded once, answered once
    bots.client.guest(outside.chat, WANG, "@jifen_bot")
    [standings] = sent(outside, since)
    assert standings["plain_text"].startswith("第 1 赛季积分"), standings
    shown = balances(standings["plain_text"].replace("：", ":"))
    assert shown == {"老王": Fraction(30), "阿张": Fraction(0), "小李": Fraction(-30)}
    since = outside.mark()
    bots.client.guest(outside.chat, WANG, "@jifen_bot /hu 老王 自摸")
    [refused] = sent(outside, since)
    assert "把我加进群" in refused["plain_text"]
