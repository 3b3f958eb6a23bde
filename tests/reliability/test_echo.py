"""Issue 28, point 7: what a member typed comes back in error replies neutralised, as names
are: a right-to-left override, an isolate, a zero-width or other control or format character
is shown as � (where it was), never sent raw to reorder or hide the reply's text."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy.engine import Engine

from bot.presentation.render import Renderer
from tests.emulator.api import Chat, User
from tests.reliability.harness import BotUnderTest, fresh_id, make_bot

TYPED = ["\u202e", "\u202d", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f", "\u00ad", "\x07"]
HIDDEN = [*TYPED, "\u200b", "\u200d", "\ufeff"]  # the parser reads a zero-width space as one


def hidden(text: str) -> list[str]:
    """The control and format characters of a reply (its line breaks aside)."""
    return [ch for ch in text if ch != "\n" and unicodedata.category(ch) in ("Cc", "Cf")]


@pytest.fixture
def bot(sqlite_engine: Engine) -> Iterator[BotUnderTest]:
    yield from make_bot(sqlite_engine)


@pytest.mark.parametrize("mark", TYPED, ids=lambda ch: f"U+{ord(ch):04X}")
def test_error_replies_show_typed_control_characters_neutralised(
    bot: BotUnderTest, mark: str
) -> None:
    players = [
        User(fresh_id() + 60_000, n, language_code="en") for n in ("Ann", "Bob", "Cat", "Dan")
    ]
    chat = Chat(-100_000_000 - fresh_id(), "supergroup", title="table")
    bot.api.add_chat(chat)
    for user in players:
        bot.api.set_member(chat.id, user, "member")
    bot.say(players[0], "/new mahjong", chat)
    for user in players:
        bot.say(user, "/join", chat)
    for typed, shown in (
        (f"/hu Ann zimo q{mark}ys", "'q�ys'"),
        (f"/pay Ann Bob 5{mark}0", "'5�0'"),
        (f"/hu Ze{mark}d zimo", "'Ze�d'"),
        (f"/history ab{mark}c", "'ab�c'"),
        (f"/undo x{mark}", "'x�'"),
    ):
        [reply] = bot.say(players[1], typed, chat).texts
        assert reply.startswith("⚠️") and shown in reply, reply
        assert hidden(reply) == [], (typed, reply)


@given(st.text(alphabet=st.sampled_from([*HIDDEN, "a", "7", " ", "\n", "老", "\u0301"])))
def test_no_parameter_reaches_a_reply_with_a_control_character(word: str) -> None:
    for lang in ("en", "zh"):
        out = Renderer(lang).error("unexpected '{word}'", {"word": word}).text
        assert hidden(out) == []
        assert out.count("\ufffd") == sum(ch in HIDDEN for ch in word)
        assert hidden(Renderer(lang).alert("unexpected '{word}'", {"word": word})) == []
