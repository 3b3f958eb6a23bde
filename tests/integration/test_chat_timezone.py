"""/set tz: /history and /export speak the chat's time zone, named where the times are shown —
through the real Application, with updates shaped as Telegram sends them."""

# ruff: noqa: F811  (the tests take test_bot's `bot` fixture, imported here, as a parameter)

from __future__ import annotations

from datetime import datetime, timedelta

from tests.integration.test_bot import ANN, BOB, CAT, DAN, ZHANG, Harness, bot  # noqa: F401


def hand_time(history: str) -> datetime:
    line = next(line for line in history.splitlines() if line.startswith("#1 "))
    return datetime.strptime(line.split()[1] + " " + line.split()[2], "%m-%d %H:%M")


async def test_history_and_export_in_the_chats_time_zone(bot: Harness) -> None:
    await bot.seat()
    await bot.say(CAT, "/hu Ann zimo mq")
    utc = await bot.text(DAN, "/history")
    assert "(times: UTC)" in utc.splitlines()[0]
    refused = await bot.text(DAN, "/set tz Asia/Shanghai")  # Dan is no admin
    assert "Only group admins" in refused
    wrong = await bot.text(BOB, "/set tz Beijing")
    assert "'Beijing' is not a time zone" in wrong and "Asia/Shanghai" in wrong
    assert "(times: UTC)" in await bot.text(DAN, "/history")  # nothing changed
    assert "Asia/Shanghai, UTC+08:00" in await bot.text(BOB, "/set tz asia/shanghai")
    local = await bot.text(DAN, "/history")
    assert "(times: Asia/Shanghai, UTC+08:00)" in local.splitlines()[0]
    assert hand_time(local) - hand_time(utc) == timedelta(hours=8)
    await bot.say(ANN, "/set lang zh")
    zh = await bot.text(ZHANG, "/history")
    assert "时间：Asia/Shanghai, UTC+08:00" in zh
    await bot.say(ANN, "/set lang en")
    (file,) = [e for e in await bot.say(BOB, "/export") if e.media_kind == "document"]
    assert file.content is not None and "times in Asia/Shanghai" in file.plain_text
    header, first, *_ = file.content.decode("utf-8-sig").splitlines()
    assert header.startswith("time (Asia/Shanghai),table,hand,")
    at = datetime.strptime(first.split(",")[0], "%Y-%m-%d %H:%M:%S")
    assert at.strftime("%m-%d %H:%M") == hand_time(local).strftime("%m-%d %H:%M")
    await bot.say(ANN, "/set 时区 UTC")
    assert "(times: UTC)" in await bot.text(DAN, "/history")
