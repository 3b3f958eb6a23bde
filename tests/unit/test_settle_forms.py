"""The settle-up's forms and arithmetic: `/settle money`, `/set stake <game>`, a record's par,
money in whole cents (a property) and money as it is shown."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.commands.parsing import ParseError, parse
from bot.presentation.numbers import fmt_money
from service.requests import SetOption, SetStake, Setting, Settle
from service.squaring import hand_par, in_cents, stake_of
from storage.models import ChatRow, TransferRow

F = Fraction


@pytest.mark.parametrize(
    ("text", "request_"),
    [
        ("/settle", Settle()),
        ("/settle money", Settle(money=True)),
        ("/settle 钱", Settle(money=True)),
        ("/settle MONEY 2", Settle(2, money=True)),
        ("/settle 2 money", Settle(2, money=True)),
        ("/settle season 3 钱", Settle(3, money=True)),
        ("/结算 钱", Settle(money=True)),
        ("/set stake 0.5", SetOption(Setting.STAKE, "0.5")),
        ("/set stake off", SetOption(Setting.STAKE, "0")),
        ("/set stake mahjong 1", SetStake("mahjong", "1")),
        ("/set 底分 麻将 1", SetStake("mahjong", "1")),
        ("/set stake 510k 0.2", SetStake("510k", "0.2")),
        ("/set stake 510k3 0.20", SetStake("510k", "0.2")),
        ("/set stake 五十k .5", SetStake("510k", "0.5")),
        ("/set stake 斗地主 0.1", SetStake("free:斗地主", "0.1")),
        ("/set stake 0.1 斗地主", SetStake("free:斗地主", "0.1")),
        ("/set stake Poker 0", SetStake("free:Poker", "0")),
        ("/set stake free 2", SetStake("free", "2")),
        ("/set stake mahjong off", SetStake("mahjong", None)),
        ("/set stake 麻将 关", SetStake("mahjong", None)),
    ],
)
def test_forms(text: str, request_: object) -> None:
    assert parse(text) == request_


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("/settle money money", "twice"),
        ("/settle money x", "season number"),
        ("/set stake mahjong", "stake too"),
        ("/set stake 1 2", "which game"),
        ("/set stake mahjong 1 2", "one game and its stake"),
        ("/set stake mahjong lots", "is not a stake"),
        ("/set stake mahjong -1", "is not a stake"),
        ("/set stake @bob 1", "not a game name"),
        ("/set stake averyveryveryverylongname1 1", "not a game name"),
    ],
)
def test_refusals_say_what_was_wrong(text: str, says: str) -> None:
    with pytest.raises(ParseError) as refused:
        parse(text)
    assert says in refused.value.msgid.format(**refused.value.params)


def pay(payer: int | None, payee: int | None, amount: Fraction | int) -> TransferRow:
    return TransferRow(
        event_id=1,
        season_id=1,
        unit="510k",
        payer_id=payer,
        payee_id=payee,
        amount=amount,
        reason="score",
    )


def test_a_record_s_par_is_its_average_over_the_seats() -> None:
    scores = [pay(None, 1, 45), pay(2, None, 5), pay(None, 3, 45), pay(4, None, 5)]
    assert hand_par(scores, [1, 2, 3, 4]) == dict.fromkeys([1, 2, 3, 4], 20)
    assert hand_par([pay(1, 2, 5), pay(3, 2, 7)], [1, 2, 3, 4]) == {}  # zero-sum: a transfer
    assert hand_par([pay(None, 1, 20)], [1, 2, 3]) == dict.fromkeys([1, 2, 3], F(20, 3))
    assert hand_par([], [1, 2]) == {}


def test_a_game_s_own_stake_comes_before_the_chat_s() -> None:
    chat = ChatRow(id=1, stake=F(1, 2), stakes={"mahjong": "1", "free:Poker": "0"})
    assert stake_of(chat, "mahjong") == 1
    assert stake_of(chat, "510k") == F(1, 2)
    assert stake_of(chat, "free:poker") is None  # its own 0: plays for nothing
    assert stake_of(ChatRow(id=1), "mahjong") is None
    assert stake_of(None, "mahjong") is None


amounts = st.lists(st.fractions(max_denominator=1000).map(lambda f: f.limit_denominator(600)))


@given(amounts)
def test_money_in_whole_cents_still_adds_up_and_is_off_by_less_than_a_cent(
    values: list[Fraction],
) -> None:
    money = {f"p{i}": v for i, v in enumerate(values)}
    if money:
        money["rest"] = -sum(values, F(0))
    cents, rounded = in_cents(money, {k: k for k in money})
    assert sum(cents.values(), F(0)) == 0
    assert rounded == any((v * 100).denominator != 1 for v in money.values())
    for key, value in money.items():
        assert (cents[key] * 100).denominator == 1
        assert abs(cents[key] - value) < F(1, 100)
        if (value * 100).denominator == 1:
            assert cents[key] == value  # whole cents stay as they are


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (F(12), "12"),
        (F(37, 10), "3.70"),
        (F(1, 3), "0.33"),
        (F(2, 3), "0.67"),
        (F(1, 8), "0.13"),
        (F(-1, 8), "-0.13"),
    ],
)
def test_money_shows_two_decimals_where_needed(value: Fraction, shown: str) -> None:
    assert fmt_money(value) == shown
