"""Issue 39, point 2: no reply is ever over Telegram's limits, and a refusal shows back at most
30 characters of what was typed (and "…"), however long the command.

Every command is sent the longest text Telegram delivers (4096 UTF-16 code units) in shapes its
refusals echo: a long word of letters, digits, Chinese, astral emoji, many short words, tiles
and bracket groups — after the words that get it to its later refusals (a /hu's winner and how,
a /pay's two players…). The tiles' refusals that echo a group or digits are each met with a
4,000-character one (they were over the limit: "Message is too long", then the generic
apology). The emulator refuses what Telegram refuses (text 4096, caption 1024, a button's
answer 200 characters, callback data 64 bytes), so any such reply is a handler error here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy.engine import Engine

from tests.emulator.api import Chat, User, utf16_len
from tests.reliability.harness import (
    WARNING,
    BotUnderTest,
    Outcome,
    describe,
    fresh_id,
    make_bot,
    seated_table,
)

LIMIT = 4096  # a message's text, in UTF-16 code units: the longest command Telegram delivers
ECHO = 30  # characters of the typed text a refusal may show back ("…" after)
REFERENCE = Path(__file__).parents[2] / "docs" / "commands.md"
COMMANDS = sorted(set(re.findall(r"`/([a-z]+)\b", REFERENCE.read_text(encoding="utf-8"))))
#: What gets a command past its first words to the refusals further on.
PREFIXES = {
    "hu": ("Ann zimo ", "Ann pao Bob qys ", "Ann zimo [", "Ann zimo 11m ("),
    "gang": ("Ann ", "Ann ming "),
    "kong": ("Ann an ",),
    "pay": ("Ann Bob ", "Ann "),
    "s": ("Ann+1 ", "Ann+1 Bob-1 "),
    "score": ("Ann+1 Bob",),
    "r": ("Ann=10 ", "Ann=10 Bob=20 Cat=30 Dan=40 out "),
    "report": ("Ann=10 Bob=20 Cat=30 Dan=40 out Ann ",),
    "new": ("free ", "mahjong "),
    "set": ("lang ", "stake ", "tz ", "rating "),
    "seats": ("Ann Bob ",),
    "sub": ("Ann ",),
    "merge": ("Ann ",),
    "link": ("Ann ",),
    "rename": ("Ann ",),
    "undo": ("1 ",),
    "history": ("5 ",),
    "standings": ("1 ",),
}
#: One unit each, repeated to the limit.
UNITS = ("x", "9", "老", "😀", "🀄", "ab ", "1m", "[1", "(1", "11m[", "x+", "Ann=", "\u202e")


def longest(head: str, unit: str, tail: str = "") -> str:
    """`head`, `unit` repeated, `tail`: as long as Telegram delivers (to a unit)."""
    room = LIMIT - utf16_len(head) - utf16_len(tail)
    return head + unit * (room // utf16_len(unit)) + tail


def echoed(outcome: Outcome, unit: str) -> bool:
    """Whether a refusal shows back more than `ECHO` characters of the repeated `unit`."""
    runs = {(unit * (ECHO + 2 * len(unit)))[k : k + ECHO + 1] for k in range(len(unit))}
    refusals = [t for t in outcome.texts if t.startswith(WARNING)]
    return any(run.strip() and run in text for text in refusals for run in runs)


def within_limits(outcome: Outcome) -> None:
    assert not outcome.errors, describe(outcome.errors)
    for entry in outcome.sent:
        assert utf16_len(entry.plain_text) <= LIMIT
    for answer in outcome.answers:
        assert answer.text is None or len(answer.text) <= 200


@pytest.fixture(scope="module")
def bot(module_engine: Engine) -> Iterator[BotUnderTest]:
    yield from make_bot(module_engine)


@pytest.fixture(params=["en", "zh"])
def table(bot: BotUnderTest, request: pytest.FixtureRequest) -> tuple[Chat, list[User]]:
    """A group of four at a mahjong table with a hand recorded (Ann is its creator), speaking
    English or Chinese."""
    chat, users = seated_table(bot)
    if request.param == "zh":
        assert "语言" in bot.say(users[0], "/set lang zh", chat).texts[0]
    bot.say(users[1], "/hu Ann zimo", chat)
    return chat, users


def test_the_command_reference_names_the_commands() -> None:
    assert {"hu", "pay", "s", "r", "new", "set", "undo", "join", "me"} <= set(COMMANDS)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_s_longest_input_is_answered_within_telegram_s_limits(
    bot: BotUnderTest, table: tuple[Chat, list[User]], command: str
) -> None:
    chat, users = table
    for head in ("", *PREFIXES.get(command, ())):
        for unit in UNITS:
            text = longest(f"/{command} {head}", unit)
            outcome = bot.say(users[0], text, chat)
            within_limits(outcome)
            assert not echoed(outcome, unit), (text[:60], outcome.texts)


#: A tiles refusal that echoes what was typed (a group, digits), and a shape that meets it
#: (head, unit repeated, tail). The others echo a character, a tile or what the tiles read as.
TILES = {
    "tiles_bracket_unclosed": ("[", "1m", ""),
    "tiles_bracket_nested": ("[", "1m", "[1m]"),
    "tiles_bracket_mismatch": ("[", "1", "m)"),
    "tiles_group_shape": ("[", "1", "m]"),
    "tiles_concealed_kong": ("(", "1", "m)"),
    "tiles_no_suit": ("11m ", "1", ""),
}
SHOWN = {  # how each refusal reads (English)
    "tiles_bracket_unclosed": "is not closed",
    "tiles_bracket_nested": "a bracket opens inside",
    "tiles_bracket_mismatch": "opens with one bracket and closes with another",
    "tiles_group_shape": "an exposed group in brackets is a pung",
    "tiles_concealed_kong": "parentheses hold a concealed kong",
    "tiles_no_suit": "have no suit letter",
}


@pytest.mark.parametrize("code", sorted(TILES))
def test_every_tiles_refusal_cuts_the_group_it_echoes(
    bot: BotUnderTest, table: tuple[Chat, list[User]], code: str
) -> None:
    chat, users = table
    head, unit, tail = TILES[code]
    text = longest(f"/hu Ann zimo {head}", unit, tail)
    assert LIMIT - 3 <= utf16_len(text) <= LIMIT
    outcome = bot.say(users[1], text, chat)
    within_limits(outcome)
    [reply] = outcome.texts
    english = reply.startswith(WARNING + " Ann's tiles: ")
    assert english or reply.startswith(WARNING + " Ann 的手牌："), reply
    assert SHOWN[code] in reply or not english, reply
    assert not echoed(outcome, unit) and "…" in reply, reply
    assert len(reply) < 600


def test_a_long_history_of_emoji_names_is_split_as_telegram_counts(bot: BotUnderTest) -> None:
    """An emoji past U+FFFF is one character in Python and two in Telegram's count: /history
    100 with such names is sent in parts Telegram takes (it was one part, "too long")."""
    chat = Chat(-fresh_id() - 3_300_000_000_000, "supergroup", title="emoji")
    bot.api.add_chat(chat)
    faces = ("😀", "🐉", "🎲", "🦊")
    users = [User(33_000_000 + fresh_id(), face * 32, language_code="en") for face in faces]
    for user in users:
        bot.api.set_member(chat.id, user, "member")
    bot.say(users[0], "/new mahjong", chat)
    for user in users:
        bot.say(user, "/join", chat)
    for i in range(100):  # the winners by turns: never the same hand twice running
        assert not bot.say(users[0], f"/hu {i % 4 + 1} pao {(i + 1) % 4 + 1} qys", chat).errors
    outcome = bot.say(users[1], "/history 100", chat)
    within_limits(outcome)
    assert len(outcome.texts) >= 2 and sum(t.count("#") for t in outcome.texts) >= 100
