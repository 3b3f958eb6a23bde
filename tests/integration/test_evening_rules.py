"""A real evening at the table (issue 12): a hand that contradicts its kongs is refused with the
reason, at the first step where it is known, and 门清 left unsaid is pointed out — through the
real Application, with updates shaped as Telegram sends them."""

# ruff: noqa: F811  (the tests take test_bot's `bot` fixture, imported here, as a parameter)

from __future__ import annotations

from tests.emulator.api import OutboxEntry
from tests.integration.test_bot import ANN, BOB, CAT, ZHANG, Harness, bot  # noqa: F401
from tests.integration.test_near_repeats import typed

NOT_CONCEALED = "scored as not concealed"


def buttons(entry: OutboxEntry) -> dict[str, str]:
    """A message's buttons: label → callback data."""
    return {b["text"]: b["callback_data"] for row in entry.buttons for b in row}


async def standings(bot: Harness) -> str:
    return await bot.text(ANN, "/standings")


# --- 6: a hand against its kongs -------------------------------------------------------------


async def test_menqing_after_an_exposed_kong_is_refused_with_the_reason(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/gang Ann ming Bob")
    before = await standings(bot)
    refused = await bot.text(CAT, "/hu Ann zimo mq")
    assert "⚠️" in refused and "exposed or added kong" in refused and "Leave out mq" in refused
    assert await standings(bot) == before  # nothing recorded
    paid = await bot.text(CAT, "/hu Ann zimo")
    assert "Bob → Ann 3" in paid and "base 3 × 1 = 3" in paid  # not the 门清 rate 4
    assert NOT_CONCEALED not in paid  # 门清 was impossible: no hint


async def test_seven_pairs_after_a_kong_is_refused_in_both_languages(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/gang Ann bu Bob")
    en = await bot.text(CAT, "/hu Ann pao Cat qidui")
    assert "seven pairs hold no kong" in en
    await bot.say(ANN, "/set lang zh")  # the chat's language (张三's phone does not choose it)
    zh = await bot.text(ZHANG, "/hu Ann pao Cat 七对")
    assert "七对不能有杠" in zh
    assert "Hand #" not in en + zh and "第 1 局" not in zh


async def test_special_wins_and_quanqiuren_against_kongs(bot: Harness) -> None:
    await bot.seat()  # Ann deals
    await bot.say(ANN, "/gang Ann an")
    assert "before any kong" in await bot.text(ANN, "/hu Ann tianhu")
    assert "全求人 has every meld from the others" in await bot.text(ANN, "/hu Ann pao Bob qqr")
    await bot.say(BOB, "/gang Bob ming Cat")
    assert "before any kong" in await bot.text(BOB, "/hu Bob dihu")
    # another player's kongs do not touch the winner's 门清 or 七对
    assert "Hand #1" in await bot.text(CAT, "/hu Cat pao Dan qidui")


async def wizard_to_flags(bot: Harness, how: str, pattern: str) -> OutboxEntry:
    """Ann wins `how` (on Bob's discard when it has one) with `pattern`: the flags screen."""
    (screen,) = await bot.say(ANN, "/hu")
    for label in ("1. Ann", how, "2. Bob", pattern):
        data = buttons(screen).get(label)
        if data is None:  # the way to win has no discarder: no "who paid?" screen
            continue
        (screen,) = await bot.press(ANN, screen, data)
    return screen


async def test_the_wizard_offers_no_contradictory_flag(bot: Harness) -> None:
    await bot.seat()
    qidui = await wizard_to_flags(bot, "点炮 on a discard", "七小对 seven pairs")
    assert [label for label in buttons(qidui) if "门清" in label or "全求人" in label] == []
    tianhu = await wizard_to_flags(bot, "天胡 heavenly hand", "鸡胡 plain hand")
    assert not any("门清" in label for label in buttons(tianhu))
    plain = await wizard_to_flags(bot, "点炮 on a discard", "鸡胡 plain hand")
    assert "门清?" in plain.plain_text  # asked, not guessed
    mq = next(data for label, data in buttons(plain).items() if "门清" in label)
    (after,) = await bot.press(ANN, plain, mq)
    assert not any("全求人" in label for label in buttons(after))  # 门清 excludes 全求人


async def test_the_wizard_offers_nothing_the_winners_kongs_contradict(bot: Harness) -> None:
    await bot.seat()
    await bot.say(ANN, "/gang Ann ming Bob")
    (screen,) = await bot.say(ANN, "/hu")
    (hows,) = await bot.press(ANN, screen, buttons(screen)["1. Ann"])
    assert not any(special in label for label in buttons(hows) for special in ("天胡", "人胡"))
    (screen,) = await bot.say(ANN, "/hu")
    (bobs,) = await bot.press(ANN, screen, buttons(screen)["2. Bob"])
    assert "天胡 heavenly hand" in buttons(bobs)  # Bob made no kong
    flags = await wizard_to_flags(bot, "自摸 self-draw", "鸡胡 plain hand")
    assert [label for label in buttons(flags) if "门清" in label] == []
    assert "门清?" not in flags.plain_text  # not asked: it cannot be
    (screen,) = await bot.say(ANN, "/hu")
    for label in ("1. Ann", "点炮 on a discard", "2. Bob"):
        (screen,) = await bot.press(ANN, screen, buttons(screen)[label])
    assert not any("对" in label for label in buttons(screen))  # no 七对 after a kong


async def test_a_kong_recorded_meanwhile_is_refused_at_record_with_the_reason(
    bot: Harness,
) -> None:
    await bot.seat()
    screen = await wizard_to_flags(bot, "自摸 self-draw", "鸡胡 plain hand")
    mq = next(data for label, data in buttons(screen).items() if "门清" in label)
    (screen,) = await bot.press(ANN, screen, mq)
    (screen,) = await bot.press(ANN, screen, buttons(screen)["Done"])
    await bot.say(ANN, "/gang Ann bu Bob")  # while the buttons were open
    before = await standings(bot)
    entries = await bot.press(ANN, screen, buttons(screen)["Record"])
    assert any("exposed or added kong" in e.plain_text for e in entries)
    assert await standings(bot) == before  # nothing recorded


# --- 7: 门清 must be said --------------------------------------------------------------------


async def test_an_unsaid_menqing_is_pointed_out_when_it_was_possible(bot: Harness) -> None:
    await bot.seat()
    plain = await bot.text(CAT, "/hu Ann pao Bob")
    assert f"Ann's hand was {NOT_CONCEALED}" in plain and "/undo" in plain and "mq" in plain
    said = await typed(bot, CAT, "/hu Ann pao Bob mq", "Replace #1")  # as the reminder says
    assert "Bob → Ann 4" in said and NOT_CONCEALED not in said and "#1 corrected" in said
    for concealed_anyway in ("/hu Ann pao Bob qidui", "/hu Bob renhu", "/hu Ann pao Bob qqr"):
        said = await typed(bot, CAT, concealed_anyway)
        assert " → " in said and NOT_CONCEALED not in said
    await bot.say(ANN, "/set lang zh")
    zh = await bot.text(ZHANG, "/hu Ann 自摸")  # Ann was reminded already: the line says it
    assert "非门清" in zh and "按非门清计分" not in zh
    assert "按非门清计分" in await bot.text(ZHANG, "/hu Dan 自摸")  # Dan's first
