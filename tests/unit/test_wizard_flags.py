"""The /hu wizard never offers, nor accepts in its callback data, a contradictory flag."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.chat.wizard import FLAGS, HOWS, PATTERNS, Wizard, decode, offered


def test_qidui_and_the_special_wins_offer_only_qingyise() -> None:
    for pattern in ("qidui", "qidui2"):
        assert offered("pao", pattern, 0) == ("qys",)
    for how in ("tianhu", "dihu", "renhu"):
        assert offered(how, "pph", 0) == ("qys",)


def test_menqing_and_quanqiuren_exclude_each_other() -> None:
    assert offered("pao", "jihu", 0) == FLAGS
    assert "qqr" not in offered("pao", "jihu", 0b010)
    assert "mq" not in offered("pao", "jihu", 0b100)


def test_contradictory_states_do_not_decode() -> None:
    assert decode("1.pao.2.qidui.4.ok") is None  # 七对 + 全求人
    assert decode("1.pao.2.jihu.6") is None  # 门清 + 全求人
    assert decode("1.tianhu.-.jihu.2") is None  # 天胡 + 门清 (concealed anyway)
    assert decode("1.pao.2.qidui.1.ok") == Wizard(1, "pao", "2", "qidui", 1, "ok")


@given(st.sampled_from(sorted(HOWS)), st.sampled_from(PATTERNS), st.integers(0, 7), st.booleans())
def test_every_decoded_state_has_only_offered_flags(
    how: str, pattern: str, flags: int, done: bool
) -> None:
    source = "2" if HOWS[how].needs_discarder else "-"
    state = decode(f"1.{how}.{source}.{pattern}.{flags}" + (".ok" if done else ""))
    if state is None:
        return
    shown = offered(how, pattern, flags)
    assert all(f in shown for i, f in enumerate(FLAGS) if flags >> i & 1)


def test_the_winners_kongs_rule_out_menqing_or_quanqiuren() -> None:
    assert offered("zimo", "jihu", 0, frozenset({"an"})) == ("qys", "mq")
    assert offered("pao", "pph", 0, frozenset({"ming"})) == ("qys", "qqr")
    assert offered("pao", "pph", 0, frozenset({"an", "bu"})) == ("qys",)


def test_the_sealed_player_rides_in_the_flags_number() -> None:
    state = decode("1.pao.2.jihu.25.ok")  # 清一色 (1) and Cat sealed (3 × 8)
    assert state == Wizard(1, "pao", "2", "jihu", 1, "ok", sealed=3)
    assert state.command() == "/hu 1 pao 2 qys feng 3"
    assert state.encode() == "v1:w:1.pao.2.jihu.25.ok"
    assert decode("1.pao.2.jihu.8") is None  # the winner sealed himself
    assert decode("1.pao.2.jihu.26") is None  # 门清 with a sealed player
    assert decode("1.pao.2.qidui.24") is None  # 七对 with a sealed player
    assert decode("1.tianhu.-.jihu.16") is None  # 天胡 with a sealed player
    assert decode("1.pao.2.jihu.40") is None  # no seat 5


@given(
    st.sampled_from(sorted(HOWS)),
    st.sampled_from(PATTERNS),
    st.integers(0, 99),
    st.sampled_from(["", ".ok", ".go"]),
)
def test_a_decoded_state_encodes_back_to_its_data(
    how: str, pattern: str, flags: int, stage: str
) -> None:
    source = "2" if HOWS[how].needs_discarder else "-"
    arg = f"1.{how}.{source}.{pattern}.{flags}{stage}"
    state = decode(arg)
    if state is not None:
        assert state.encode() == f"v1:w:{arg}" and decode(arg) == state
        assert 0 <= state.sealed <= 4 and state.sealed != 1
