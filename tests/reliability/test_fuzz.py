"""Bad input over the whole bot: the real Application, the fake Bot API, every command and button.

Hypothesis draws sequences of steps — commands built from the real command grammar with random
and nasty arguments, button presses with real, mutated and forged callback data, anonymous admins
— in fresh chats of every kind. After each step: no exception reached the error handlers (a
``BadRequest`` there means broken HTML, a reply over 4096 characters or an unhandled edit), every
command addressed to the bot was answered (malformed ones with a message starting with ⚠️,
commands for other bots ignored, unknown ones answered too), every button press was answered
exactly once, nothing went to another chat or topic, and a refused step changed no row of the
database. The ledger's invariants are checked at the end of every example.

The bugs it found have regression tests at the end of this file.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.engine import Engine

from bot.commands.parsing import LATIN, NotForThisBot, ParseError, command_text, parse, read
from service.names import clean
from tests.emulator.api import Chat, User
from tests.reliability.harness import (
    BOT_USERNAME,
    TEXT_LIMIT,
    WARNING,
    BotUnderTest,
    Outcome,
    describe,
    fresh_id,
    make_bot,
    seated_table,
)
from tests.reliability.nasty import CORE, NASTY

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("JIFEN_FUZZ_EXAMPLES", "120"))
#: The whole corpus goes through these templates; the others get CORE (runtime).
FULL_CORPUS = ("/hu {x}", "/r {x}=30 2=20 3=40 4=10 out 1 3", "/join {x}", "/{x}")

# --------------------------------------------------------------------------- known bugs

#: Product bugs found by this suite, by signature. Delete an entry once its bug is fixed.
# --------------------------------------------------------------------------- the cast


@dataclass
class Cast:
    """Fresh users and chats for one example (examples do not share state)."""

    users: list[User]  # Ann (creator), Bob (admin), Cat, Dan (members), Eve (left the chat)
    group: Chat
    supergroup: Chat
    forum: Chat

    @classmethod
    def new(cls, bot: BotUnderTest) -> Cast:
        base = 10_000_000 + fresh_id() * 10
        names = ("Ann", "Bob", "Cat", "Dan", "Eve")
        users = [
            User(base + i, name, username=f"{name.lower()}{base}", language_code="en")
            for i, name in enumerate(names)
        ]
        cast = cls(
            users,
            Chat(-fresh_id() - 5_000_000, "group", title="small <group> & co"),
            Chat(-fresh_id() - 1_005_000_000_000, "supergroup", title="table"),
            Chat(-fresh_id() - 1_006_000_000_000, "supergroup", title="club", is_forum=True),
        )
        for chat in (cast.group, cast.supergroup, cast.forum):
            bot.api.add_chat(chat)
            for user, status in zip(
                users, ("creator", "administrator", "member", "member", "left"), strict=True
            ):
                bot.api.set_member(chat.id, user, status)
        return cast

    def chat(self, kind: str, owner: User) -> Chat:
        return {
            "group": self.group,
            "supergroup": self.supergroup,
            "forum": self.forum,
            "private": Chat.private(owner),
        }[kind]


# --------------------------------------------------------------------------- strategies

_KEYWORDS = (
    "mahjong 麻将 510k 510k3 3 marathon 连打 sisuang 死双 zerosum nosisuang "
    "zimo 自摸 pao 点炮 gangkai 杠上花 gangpao qianggang quanqiupao haidi haidipao tianhu dihu "
    "renhu jihu pph 碰碰胡 qidui qidui1 qidui2 qidui3 qys 清一色 mq qqr feng an ming bu 暗杠 "
    "out 出 season confirm stake lang on off zh en 中文 平胡 龙七对 豪七 清 自摸清一色 点炮Bob "
    "Ann自摸"
)
KEYWORDS = tuple(_KEYWORDS.split())
REFS = ("1", "2", "3", "4", "me", "我", "Ann", "ann", "Bob", "Cat", "Dan", "Eve", "An", "Anna")
EXTRA_COMMANDS = (
    *("weather", "standigns", "hu2", "HU", "Hu", "NEW", "a", "y" * 65),
    *("流局", "胡", "排名", "撤销", "胡说"),
)
PREFIXES = ("", "", "", "", "@jifen_bot ", "@other_bot ")
SUFFIXES = ("", "", "", "", "@jifen_bot", "@JIFEN_BOT", "@other_bot", "@ab")
SEPARATORS = (" ", " ", "  ", "\n", "\u3000", ",", " ; ", "，")

words = st.one_of(
    st.sampled_from(KEYWORDS),
    st.sampled_from(REFS),
    st.sampled_from(NASTY),
    st.integers(-(10**20), 10**20).map(str),
    st.builds(
        lambda who, a, b: f"{who}={a}" + (f"/{b}" if b is not None else ""),
        st.sampled_from(REFS),
        st.integers(-5, 120),
        st.none() | st.integers(-5, 120),
    ),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=12),
)


@st.composite
def random_command(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(PREFIXES))
    word = draw(st.sampled_from((*LATIN, *EXTRA_COMMANDS)))
    suffix = draw(st.sampled_from(SUFFIXES))
    args = draw(st.lists(words, max_size=7))
    sep = draw(st.sampled_from(SEPARATORS))
    return f"{prefix}/{word}{suffix}" + (" " + sep.join(args) if args else "")


def _pick(draw: st.DrawFn, options: tuple[str, ...] | list[str]) -> str:
    return draw(st.sampled_from(options))


@st.composite
def wellformed_command(draw: st.DrawFn) -> str:
    """Mostly valid commands (so that hands are really recorded), sometimes with a twist."""
    ref = st.sampled_from(REFS)
    kind = draw(st.sampled_from(("hu", "hu2", "gang", "r", "r3", "misc", "admin")))
    if kind == "hu":
        how = _pick(draw, ("zimo", "pao", "gangkai", "gangpao", "qianggang", "haidi", "tianhu"))
        parts = [draw(ref), how]
        if how in ("pao", "gangpao", "qianggang"):
            parts.append(draw(ref))
        parts += draw(st.lists(st.sampled_from(("pph", "qys", "mq", "qidui2", "qqr")), max_size=2))
        return "/hu " + " ".join(parts)
    if kind == "hu2":
        return f"/hu {draw(ref)} pao {draw(ref)} pph; {draw(ref)} pao {draw(ref)} qys"
    if kind == "gang":
        return f"/gang {draw(ref)} " + _pick(draw, ("an", f"ming {draw(ref)}", f"bu {draw(ref)}"))
    if kind in ("r", "r3"):
        seats = 4 if kind == "r" else 3
        points = draw(
            st.lists(
                st.sampled_from((0, 5, 10, 20, 25, 30, 40, 50, 100)), min_size=seats, max_size=seats
            )
        )
        held = draw(st.sampled_from(("", "/10", "/0", "/25")))
        entries = " ".join(
            f"{i + 1}={p}" + (held if i == seats - 1 else "") for i, p in enumerate(points)
        )
        out = " ".join(draw(st.permutations([str(i + 1) for i in range(seats)]))[: seats - 1])
        return f"/r {entries} out {out}"
    if kind == "misc":
        return _pick(
            draw,
            (
                "/undo",
                "/standings",
                "/history",
                "/history 100",
                "/settle",
                "/players",
                "/liuju",
                "/seasons",
                "/rules",
                "/help",
                "/hu",
                "/join",
                "/standings 1",
                "/stats",
                "/chart",
                "/export",
            ),
        )
    return _pick(
        draw,
        (
            "/reset",
            "/reset confirm",
            "/set stake 0.5",
            "/set lang zh",
            "/set lang en",
            "/set sisuang on",
            "/set zerosum on",
            "/link Anna @someone",
            "/new 510k marathon zerosum",
            "/dealer 2",
        ),
    )


forged_data = st.one_of(
    st.builds("v1:undo:{}".format, st.integers(-3, 10**19)),
    st.builds("v1:reset:{}".format, st.integers(-3, 10**19)),
    st.sampled_from(("v1:cancel", "v1:cancel:x", "v2:undo:1", "v1:undo:", "v1:", "", ":::")),
    st.sampled_from(("v1:undo:１２", "v1:undo:00000000000000000001", "v1:reset:٣")),
    st.from_regex(
        r"v1:w:[1-4](\.[a-z]{1,10}(\.[1-4-](\.[a-z0-9]{1,7}(\.[0-7](\.(ok|go))?)?)?)?)?",
        fullmatch=True,
    ),
    st.text(max_size=70),
    st.just("v1:undo:" + "9" * 60),
)


def mutate(data: str, how: int, n: int) -> str:
    if how == 0:
        return data
    if how == 1:
        return data[:-1] + str(n % 10)
    if how == 2:
        return data + str(n)
    return data.rsplit(":", 1)[0] + f":{n}"


PRELUDES = {
    "none": (),
    "mahjong-users": ("/new mahjong", "*join"),
    "mahjong-guests": ("/new mahjong", "/seats Ann Anna Annie Bob"),
    "510k": ("/new 510k", "/seats Ann Bob Cat Dan"),
    "510k3": ("/new 510k3", "/seats Ann Bob Cat"),
    "marathon": ("/new 510k3 marathon", "/seats Ann Bob Cat"),
}


# --------------------------------------------------------------------------- the oracle


def is_command(update: dict[str, Any]) -> bool:
    """What the bot takes as a command: a bot_command entity at offset 0 (PTB's
    filters.COMMAND), or one Telegram does not mark (`/流局 …`, `@bot /hu …`: command_text)."""
    message = update.get("message", {})
    entities = message.get("entities") or []
    if entities and entities[0]["type"] == "bot_command" and entities[0]["offset"] == 0:
        return True
    return command_text(message.get("text") or "", BOT_USERNAME) is not None


class Fuzzer:
    def __init__(self, bot: BotUnderTest, cast: Cast) -> None:
        self.bot = bot
        self.cast = cast

    def chat_ids(self) -> list[int]:
        c = self.cast
        return [c.group.id, c.supergroup.id, c.forum.id, *(u.id for u in c.users)]

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        return chat_snapshot(self.bot.engine, self.chat_ids())

    def common_checks(self, outcome: Outcome, chat: Chat, thread: int | None) -> None:
        """Checks of every step."""
        assert not outcome.errors, f"error handler called: {describe(outcome.errors)}"
        for entry in outcome.sent:
            assert entry.chat_id == chat.id, "the bot wrote to another chat"
            assert len(entry.plain_text) <= TEXT_LIMIT
            if chat.is_forum and thread is not None and entry.action == "sent":
                assert entry.message_thread_id == thread, "the reply left the topic"

    def say(self, user: User, chat: Chat, message: str, thread: int | None) -> None:
        before = self.snapshot()
        update = self.bot.api.send_text(chat, user, message, thread)
        outcome = self.bot.process(update)
        self.common_checks(outcome, chat, thread)
        sent = [e for e in outcome.sent if e.action == "sent"]
        if not is_command(update):
            assert not sent, f"answered a non-command: {message!r}"
            return
        command = command_text(message, BOT_USERNAME) or message  # without a leading @bot
        typed = read(command, BOT_USERNAME, marked=True)
        if typed is not None and typed.name == "hu" and typed.alone(BOT_USERNAME):
            assert len(sent) == 1, f"{message!r}: {len(sent)} replies"  # the wizard, or ⚠️
            if outcome.warned:
                assert self.snapshot() == before, f"a refused command changed data: {message!r}"
            return
        try:
            parse(command, BOT_USERNAME)
        except NotForThisBot:
            assert not sent, f"answered a command for another bot: {message!r}"
            return
        except ParseError:
            assert len(sent) == 1, f"{message!r}: {len(sent)} replies"
            assert sent[0].plain_text.startswith(WARNING), sent[0].plain_text
            assert self.snapshot() == before, f"a refused command changed data: {message!r}"
            return
        assert sent, f"no answer to {message!r}"
        if outcome.warned:
            assert self.snapshot() == before, f"a refused command changed data: {message!r}"

    def anonymous(self, chat: Chat, message: str) -> None:
        before = self.snapshot()
        outcome = self.bot.anonymous(message, chat)
        self.common_checks(outcome, chat, None)
        if outcome.warned:
            assert self.snapshot() == before, f"a refused command changed data: {message!r}"

    def press(self, user: User, chat: Chat, message_id: int, data: str) -> None:
        before = self.snapshot()
        outcome = self.bot.press(user, chat, message_id, data)
        self.common_checks(outcome, chat, None)
        assert len(outcome.answers) == 1, f"{data!r} answered {len(outcome.answers)} times"
        if outcome.warned:
            assert self.snapshot() == before, f"a refused press changed data: {data!r}"


def chat_snapshot(engine: Engine, chat_ids: list[int]) -> dict[str, list[tuple[Any, ...]]]:
    """Every row belonging to the given chats, table by table."""
    ids = ",".join(str(int(i)) for i in chat_ids)
    seasons = f"SELECT id FROM season WHERE chat_id IN ({ids})"
    queries = {
        "chat": f"SELECT * FROM chat WHERE id IN ({ids})",
        "season": f"SELECT * FROM season WHERE chat_id IN ({ids})",
        "player": f"SELECT * FROM player WHERE chat_id IN ({ids})",
        "game_table": f"SELECT * FROM game_table WHERE chat_id IN ({ids})",
        "event": f"SELECT * FROM event WHERE chat_id IN ({ids})",
        "transfer": f"SELECT * FROM transfer WHERE season_id IN ({seasons})",
        "balance": f"SELECT * FROM balance WHERE season_id IN ({seasons})",
        # A claimed update without an event is a no-op record (an Info answer commits it).
        "processed_update": f"SELECT * FROM processed_update WHERE chat_id IN ({ids}) "
        "AND event_id IS NOT NULL",
    }
    with engine.connect() as conn:
        return {
            name: sorted((tuple(r) for r in conn.execute(text(q))), key=repr)
            for name, q in queries.items()
        }


# --------------------------------------------------------------------------- the tests


@pytest.fixture(scope="module")
def fuzz_bot(module_engine: Engine) -> Iterator[BotUnderTest]:
    yield from make_bot(module_engine)


def play_prelude(fuzzer: Fuzzer, name: str, chat: Chat, thread: int | None) -> None:
    owner = (
        fuzzer.cast.users[0]
        if chat.type != "private"
        else next(u for u in fuzzer.cast.users if u.id == chat.id)
    )
    for line in PRELUDES[name]:
        if line == "*join":
            users = fuzzer.cast.users[:4] if chat.type != "private" else [owner]
            for user in users:
                fuzzer.say(user, chat, "/join", thread)
        else:
            fuzzer.say(owner, chat, line, thread)


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    database=None,
)
@given(data=st.data())
def test_fuzz_commands_and_buttons(fuzz_bot: BotUnderTest, data: st.DataObject) -> None:
    bot = fuzz_bot
    cast = Cast.new(bot)
    fuzzer = Fuzzer(bot, cast)
    kind = data.draw(st.sampled_from(("group", "supergroup", "forum", "private")), "chat")
    owner = data.draw(st.sampled_from(cast.users[:4]), "owner")
    chat = cast.chat(kind, owner)
    thread = data.draw(st.sampled_from((None, 11, 22)), "thread") if kind == "forum" else None
    play_prelude(fuzzer, data.draw(st.sampled_from(sorted(PRELUDES)), "prelude"), chat, thread)
    steps = data.draw(st.integers(1, 8), "steps")
    for _ in range(steps):
        action = data.draw(st.sampled_from(("say", "say", "say", "press", "anonymous")))
        user = owner if kind == "private" else data.draw(st.sampled_from(cast.users), "user")
        if action == "press":
            messages = [m for m in bot.api.bot_messages(chat.id)]
            if not messages:
                continue
            message = data.draw(st.sampled_from(messages), "message")
            real = [
                b["callback_data"]
                for m in messages
                for row in (m.get("reply_markup") or {}).get("inline_keyboard", [])
                for b in row
                if "callback_data" in b
            ]
            if real and data.draw(st.booleans(), "use a real button"):
                chosen = data.draw(st.sampled_from(real), "real data")
                how = data.draw(st.integers(0, 3), "mutation")
                chosen = mutate(chosen, how, data.draw(st.integers(0, 10**6)))
            else:
                chosen = data.draw(forged_data, "forged data")
            fuzzer.press(user, chat, message["message_id"], chosen)
        elif action == "anonymous" and kind != "private":
            fuzzer.anonymous(chat, data.draw(wellformed_command() | random_command(), "text"))
        else:
            message = data.draw(wellformed_command() | random_command(), "text")
            fuzzer.say(user, chat, message, thread)
    bot.check_invariants()


@pytest.mark.parametrize(
    "template",
    [
        "/hu {x}",
        "/hu 1 pao {x}",
        "/hu {x} zimo qys",
        "/gang {x} an",
        "/r {x}=30 2=20 3=40 4=10 out 1 3",
        "/r 1={x} 2=20 3=40 4=10 out 1 3",
        "/join {x}",
        "/seats {x} B C D",
        "/dealer {x}",
        "/link {x} @someone",
        "/link Anna {x}",
        "/new {x}",
        "/history {x}",
        "/standings {x}",
        "/set stake {x}",
        "/set lang {x}",
        "/set {x} on",
        "/reset {x}",
        "/undo {x}",
        "/{x}",
        "/help@jifen_bot {x}",
    ],
)
def test_nasty_corpus(fuzz_bot: BotUnderTest, template: str) -> None:
    """Every nasty string in every argument position of a seated mahjong table (and 510K)."""
    bot = fuzz_bot
    cast = Cast.new(bot)
    fuzzer = Fuzzer(bot, cast)
    chat = cast.supergroup
    play_prelude(fuzzer, "mahjong-users" if "/r " not in template else "510k", chat, None)
    corpus = NASTY if template in FULL_CORPUS else CORE
    for nasty in corpus:
        fuzzer.say(cast.users[2], chat, template.format(x=nasty), None)
    # and as callback data on the last bot message
    if template == "/hu {x}":
        last = bot.api.bot_messages(chat.id)[-1]["message_id"]
        for nasty in CORE:
            for data in (nasty, f"v1:undo:{nasty}", f"v1:reset:{nasty}", f"v1:w:{nasty}"):
                if len(data.encode()) <= 64:  # Telegram refuses longer callback data
                    fuzzer.press(cast.users[3], chat, last, data)
    bot.check_invariants()


# --------------------------------------------------------------------------- names


NASTY_NAMES = (
    "<b>Bo</b>",
    "A&B",
    "<3",
    "Tom & <Jerry>",
    "\u202eevil",
    "&amp;lt;",
    "👨\u200d👩\u200d👧",
    "N" * 64,
)


def test_names_are_escaped_and_limited_in_every_reply(fuzz_bot: BotUnderTest) -> None:
    """Users and guests with HTML, entities, bidi and 64-character names: every reply shows
    them literally (escaped for HTML parse mode), cleaned (no bidi or other invisible
    characters: issue 15.10) and cut to 32 characters."""
    bot = fuzz_bot
    for names in (NASTY_NAMES[:4], NASTY_NAMES[4:]):
        chat = Chat(-fresh_id() - 2_000_000_000_000, "supergroup", title="<i>names</i>")
        bot.api.add_chat(chat)
        users = [User(20_000_000 + fresh_id(), n, language_code="en") for n in names]
        for user in users:
            bot.api.set_member(chat.id, user, "member")

        def say(user: User, message: str, chat: Chat = chat) -> str:
            outcome = bot.say(user, message, chat)
            assert not outcome.errors, f"{message!r}: {describe(outcome.errors)}"
            assert outcome.sent, message
            return "\n".join(outcome.texts)

        say(users[0], "/new mahjong")
        for user in users:
            say(user, "/join")
        shown = [clean(n) for n in names]
        for message in ("/players", "/hu 1 zimo", "/hu 2 pao 1 pph", "/standings", "/history"):
            reply = say(users[1], message)
            for name in shown:
                if message != "/hu 2 pao 1 pph":
                    assert name in reply, f"{name!r} not shown literally in {message}"
        reply = say(users[1], "/settle")
        assert sum(name in reply for name in shown) >= 2, reply
        reply = say(users[1], "/undo")
        assert shown[1] in reply
        assert all(len(n) <= 32 for n in shown)
    # guests: the parser takes &, < and > in guest names
    chat = Chat(-fresh_id() - 2_000_000_000_000, "supergroup", title="guests")
    bot.api.add_chat(chat)
    user = User(20_000_000 + fresh_id(), "Host", language_code="en")
    guests = ("<3", "A&B", "<b>x", "a>b")
    for message in ("/new 510k", "/seats " + " ".join(guests)):
        outcome = bot.say(user, message, chat)
        assert not outcome.errors, describe(outcome.errors)
    outcome = bot.say(user, "/r 1=30 2=20 3=40 4=10 out 1 3", chat)
    assert not outcome.errors, describe(outcome.errors)
    for guest in guests:
        assert guest in outcome.texts[0]
    for message in ("/standings", "/history", "/settle", "/players"):
        outcome = bot.say(user, message, chat)
        assert not outcome.errors, describe(outcome.errors)
        assert all(g in outcome.texts[0] for g in guests), message


# --------------------------------------------------------------------------- known bugs: xfail


def test_wizard_escapes_names(fuzz_bot: BotUnderTest) -> None:
    chat, users = seated_table(fuzz_bot, ("Tom & <Jerry>", "Bob", "Cat", "Dan"))
    screen = fuzz_bot.say(users[0], "/hu", chat).sent[0]
    outcome = fuzz_bot.press(users[0], chat, screen.message_id, "v1:w:1")
    assert not outcome.errors, describe(outcome.errors)
    assert "Tom & <Jerry>" in outcome.texts[0]


def test_double_tap_is_harmless(fuzz_bot: BotUnderTest) -> None:
    chat, users = seated_table(fuzz_bot)
    ask = fuzz_bot.say(users[0], "/reset", chat).sent[0]
    confirm = ask.buttons[0][0]["callback_data"]
    first = fuzz_bot.press(users[0], chat, ask.message_id, confirm)
    assert not first.errors
    second = fuzz_bot.press(users[0], chat, ask.message_id, confirm)
    assert not second.errors, describe(second.errors)
    assert len(second.answers) == 1


def test_undo_pressed_on_a_message_without_buttons(fuzz_bot: BotUnderTest) -> None:
    chat, users = seated_table(fuzz_bot)
    fuzz_bot.say(users[0], "/hu 1 zimo", chat)
    standings = fuzz_bot.say(users[1], "/standings", chat).sent[0]
    with fuzz_bot.engine.connect() as conn:
        last = conn.execute(
            text("SELECT max(id) FROM event WHERE chat_id = :c"), {"c": chat.id}
        ).scalar_one()
    outcome = fuzz_bot.press(users[1], chat, standings.message_id, f"v1:undo:{last}")
    assert not outcome.errors, describe(outcome.errors)  # the undo was committed meanwhile


def test_bare_hu_for_another_bot_is_ignored(fuzz_bot: BotUnderTest) -> None:
    chat, users = seated_table(fuzz_bot)
    outcome = fuzz_bot.say(users[0], "/hu@other_bot", chat)
    assert not outcome.sent, outcome.texts


def test_callback_with_unicode_digits(fuzz_bot: BotUnderTest) -> None:
    chat, users = seated_table(fuzz_bot)
    hand = fuzz_bot.say(users[0], "/hu 1 zimo", chat).sent[0]
    outcome = fuzz_bot.press(users[1], chat, hand.message_id, "v1:undo:²")
    assert not outcome.errors, describe(outcome.errors)
    assert len(outcome.answers) == 1 and outcome.answers[0].show_alert


def test_long_command_is_recorded_and_answered(fuzz_bot: BotUnderTest) -> None:
    chat, users = seated_table(fuzz_bot)
    outcome = fuzz_bot.say(users[0], "/hu 1 zimo" + "," * 4090, chat)
    assert not outcome.errors, describe(outcome.errors)


def test_history_100_fits_in_a_message(fuzz_bot: BotUnderTest) -> None:
    chat, users = seated_table(fuzz_bot)
    for i in range(30):  # the winners by turns (the same hand again would be asked about)
        fuzz_bot.say(users[0], f"/hu {i % 4 + 1} zimo qys pph" + "," * 80, chat)
    outcome = fuzz_bot.say(users[1], "/history 100", chat)
    assert not outcome.errors, describe(outcome.errors)


def test_unknown_and_ambiguous_players_are_named_with_the_seating(fuzz_bot: BotUnderTest) -> None:
    bot = fuzz_bot
    cast = Cast.new(bot)
    fuzzer = Fuzzer(bot, cast)
    chat = cast.supergroup
    play_prelude(fuzzer, "mahjong-guests", chat, None)  # Ann Anna Annie Bob
    cases = {
        "/hu Zed zimo": ("No seated player 'Zed'", "1 Ann"),
        "/hu An zimo": ("'An' could mean several players", "2 Anna"),
        "/hu 1 pao Zed": ("No seated player 'Zed'", "4 Bob"),
        "/gang @nobody an": ("No seated player '@nobody'", "3 Annie"),
    }
    for message, fragments in cases.items():
        before = fuzzer.snapshot()
        outcome = bot.say(cast.users[2], message, chat)
        assert not outcome.errors, describe(outcome.errors)
        assert len(outcome.texts) == 1 and outcome.texts[0].startswith(WARNING)
        for fragment in fragments:
            assert fragment in outcome.texts[0], (message, outcome.texts[0])
        assert fuzzer.snapshot() == before
