"""/history: hand numbers count per table, so a list spanning several tables names each one —
through the real Application."""

# ruff: noqa: F811  (the tests take test_bot's `bot` fixture, imported here, as a parameter)

from __future__ import annotations

from tests.integration.test_bot import ANN, CAT, DAN, ZHANG, Harness, bot  # noqa: F401


async def test_history_names_the_table_where_its_hands_were_at_several(bot: Harness) -> None:
    await bot.seat()
    await bot.say(CAT, "/hu Ann zimo")
    await bot.say(CAT, "/hu Bob pao Cat")
    assert "table —" not in await bot.text(DAN, "/history")  # one table: numbers are unique
    await bot.seat("510k")
    await bot.say(CAT, "/r Ann=30 Bob=20 Cat=40 Dan=10 out Ann Cat")
    lines = (await bot.text(DAN, "/history")).splitlines()
    starts = [line.split()[0] for line in lines if line.startswith(("#", "—"))]
    assert starts == ["—", "#1", "#2", "—", "#1"]
    assert lines[1] == "— Mahjong table —" and "— 510K table —" in lines
    await bot.say(ANN, "/set lang zh")
    zh = await bot.text(ZHANG, "/history")
    assert "— 麻将桌 —" in zh and "— 510K 桌 —" in zh
