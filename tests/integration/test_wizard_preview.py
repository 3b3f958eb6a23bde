"""The /hu button wizard shows the hand's amounts before it is confirmed (the service's dry run:
nothing recorded until Record), offers 封胡, and records exactly what it showed."""

# ruff: noqa: F811  (the tests take test_bot's fixture, imported here, as a parameter)

from __future__ import annotations

from typing import Any

from tests.integration.test_bot import ANN, Harness, bot  # noqa: F401


def data(screen: Any, label: str) -> str:
    buttons = [b for row in screen.buttons for b in row]
    return str(next(b["callback_data"] for b in buttons if b["text"] == label))


async def walk(bot: Harness, labels: tuple[str, ...]) -> tuple[Any, list[Any]]:
    screen = (await bot.say(ANN, "/hu"))[0]
    entries: list[Any] = []
    for label in labels:
        entries = await bot.press(ANN, screen, data(screen, label))
        screen = next((e for e in entries if e.message_id == screen.message_id), screen)
    return screen, entries


async def test_the_wizard_shows_the_amounts_and_records_them_with_the_sealed_player(
    bot: Harness,
) -> None:
    await bot.seat()
    taps = ("2. Bob", "点炮 on a discard", "3. Cat", "碰碰胡 all pungs", "封胡 Dan", "Done")
    screen, _ = await walk(bot, taps)
    shown = screen.plain_text
    assert "/hu 2 pao 3 pph feng 4" in shown and "The chat will show:" in shown
    assert "Dan → Bob" in shown and "Cat → Bob" in shown and "Net this hand:" in shown
    assert "No hands" in await bot.text(ANN, "/history")  # the preview recorded nothing
    entries = await bot.press(ANN, screen, data(screen, "Record"))
    recorded = "\n".join(e.plain_text for e in entries if e.message_id != screen.message_id)
    for line in shown.split("The chat will show:\n", 1)[1].split("\n"):
        assert line in recorded  # exactly what the preview said
    typed = await bot.text(ANN, "/history")
    assert "/hu 2 pao 3 pph feng 4" in typed


async def test_sealed_is_not_offered_where_the_rules_forbid_it(bot: Harness) -> None:
    await bot.seat()
    screen, _ = await walk(bot, ("2. Bob", "自摸 self-draw", "七小对 seven pairs"))
    assert not any("封胡" in b["text"] for row in screen.buttons for b in row)
    screen, _ = await walk(bot, ("2. Bob", "自摸 self-draw", "鸡胡 plain hand", "门清 concealed"))
    assert not any("封胡" in b["text"] for row in screen.buttons for b in row)
    screen, _ = await walk(bot, ("2. Bob", "自摸 self-draw", "鸡胡 plain hand", "封胡 Cat"))
    labels = [b["text"] for row in screen.buttons for b in row]
    assert "✅ 封胡 Cat" in labels and "门清 concealed" not in labels
    assert "封胡 Bob" not in labels  # never the winner


async def test_a_refused_hand_shows_why_and_only_cancel(bot: Harness) -> None:
    await bot.seat()
    screen, _ = await walk(bot, ("2. Bob", "天胡 heavenly hand", "鸡胡 plain hand", "Done"))
    assert screen.plain_text.split("\n") == [
        "/hu 2 tianhu",
        "⚠️ This hand cannot be scored: 天胡 is the dealer's win, and Ann deals (a non-dealer's"
        " win on the first draw is 地胡 dihu)",
    ]
    assert [b["text"] for row in screen.buttons for b in row] == ["Cancel"]
