"""Player names (service/names.py): what is stored is clean, and look-alikes share a skeleton."""

from __future__ import annotations

import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from service.names import MAX_NAME, clean, member_name, skeleton

HIDDEN = st.sampled_from(["\u202e", "\u202d", "\u2066", "\u2069", "\u200d", "\u200b", "\u00ad"])
NAMES = st.lists(st.one_of(st.characters(), HIDDEN), max_size=80).map("".join)


@given(NAMES)
def test_a_clean_name_is_stable_short_and_visible(name: str) -> None:
    shown = clean(name)
    assert clean(shown) == shown
    assert len(shown) <= MAX_NAME and shown == shown.strip() and "  " not in shown
    assert not any(unicodedata.category(ch) in ("Cc", "Cf") for ch in shown)


@given(NAMES, st.lists(HIDDEN, max_size=5))
def test_invisible_characters_do_not_change_the_skeleton(name: str, extra: list[str]) -> None:
    shown = clean(name)
    assert skeleton(shown[:1] + "".join(extra) + shown[1:]) == skeleton(shown)


def test_look_alikes() -> None:
    assert clean("\u202eecilA") == "ecilA"
    assert skeleton("Аlice") == skeleton("alice") == skeleton("ALICE\u200b")  # Cyrillic А
    assert skeleton("Ｃｈｅｎ") == skeleton("chen")
    assert skeleton("Alice") != skeleton("Alicia")
    assert skeleton("小李") == skeleton("小 李") != skeleton("小王")


def test_a_member_name_is_never_empty() -> None:
    assert member_name("\u2066\u2069", "ann", 7) == "@ann"
    assert member_name("", None, 123456) == "#3456"


def test_two_players_of_one_name_are_told_apart() -> None:
    """Issue 37: the older keeps the name; a name some other player has is skipped."""
    from service.names import told_apart, unused

    assert told_apart([(7, "David"), (3, "David"), (5, "Bob")]) == {
        3: "David",
        7: "David (2)",
        5: "Bob",
    }
    assert told_apart([(1, "Ann"), (2, "ann"), (3, "Ann (2)")]) == {
        1: "Ann",
        2: "ann (3)",
        3: "Ann (2)",
    }
    assert unused("Bob", ["bob", "Bob (2)", "Carol"]) == "Bob (3)"
    assert unused("Bob", ["Carol"]) == "Bob"
