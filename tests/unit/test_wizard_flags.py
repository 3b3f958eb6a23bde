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
