"""Issue 37, point 12, through the real PTB Application (updates as Telegram sends them): the
notes the rules imply — a self-drawn 全求人 scored without its ×2, a 杠上炮 / 抢杠 chain's kongs
never recorded with /gang, 天胡 by a non-dealer naming the dealer — in English and Chinese."""

from __future__ import annotations

from tests.integration.test_bot import ANN, ZHANG, Harness, bot

__all__ = ["bot"]  # the fixture


async def test_a_self_drawn_quanqiuren_says_its_double_is_dropped(bot: Harness) -> None:
    await bot.seat()
    said = await bot.text(ANN, "/hu Bob zimo qqr")
    assert "Bob's 全求人 was self-drawn" in said and "without 全求人's ×2" in said
    assert "Ann → Bob 6" in said  # 碰碰胡 自摸: 3 × 2
    on_a_discard = await bot.text(ANN, "/hu Cat pao Ann qqr")
    assert "self-drawn" not in on_a_discard and "全求人" in on_a_discard


async def test_a_chain_of_kongs_never_recorded_is_pointed_out(bot: Harness) -> None:
    await bot.seat()
    said = await bot.text(ANN, "/hu Cat gangpao Dan 2")
    assert "2 kong(s) of Dan's chain were never recorded with /gang" in said
    await bot.say(ANN, "/gang Dan an")
    await bot.say(ANN, "/gang Dan an")
    paid = await bot.text(ANN, "/hu Ann gangpao Dan 2")
    assert "never recorded" not in paid and "暗杠" in paid


async def test_tianhu_by_a_non_dealer_names_the_dealer(bot: Harness) -> None:
    await bot.say(ZHANG, "/new 麻将")
    await bot.say(ZHANG, "/seats 张三 小红 老王 小周")
    refused = await bot.text(ZHANG, "/hu 小红 天胡")
    assert "天胡只能是庄家胡，现在的庄家是 张三" in refused and "地胡" in refused
    notes = await bot.text(ZHANG, "/hu 小红 自摸 全求人")
    assert "小红 的全求人是自摸的" in notes
    assert "self-drawn" not in notes  # the Chinese chat reads Chinese
