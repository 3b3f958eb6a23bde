"""Who may do what: every admin-only action by every kind of actor in every kind of chat, and
forged or stale callback data.

Admin-only (docs/commands.md): /reset (and its Confirm button), /set, /link, and undoing
another table's (forum topic's) hand. Allowed exactly for the creator, administrators and
anonymous admins (``sender_chat`` is the group) in groups and supergroups, and for the user in a
private chat; refused for members, users who left and users who were kicked. A refusal answers
(⚠️ or an alert) and changes no row of the chat's data.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from tests.emulator.api import Chat, User
from tests.reliability.harness import WARNING, BotUnderTest, Outcome, describe, fresh_id, make_bot
from tests.reliability.test_fuzz import chat_snapshot

pytestmark = pytest.mark.slow

ADMINS = ("creator", "administrator", "anonymous")
ACTORS = ("member", "left", "kicked", "administrator", "creator", "anonymous")
CHAT_TYPES = ("group", "supergroup", "private")
TYPED = {
    "reset": "/reset",
    "reset-confirm": "/reset confirm",
    "set-stake": "/set stake 0.5",
    "set-lang": "/set lang zh",
    "set-sisuang": "/set sisuang on",
    "set-zerosum": "/set zerosum on",
    "link": "/link Gus @gus_account",
}
BUTTONS = ("reset-button",)


@dataclass(frozen=True)
class Case:
    action: str
    actor: str  # a member status, "anonymous", or "owner" (private chat)
    chat_type: str

    @property
    def allowed(self) -> bool:
        return self.chat_type == "private" or self.actor in ADMINS

    def __str__(self) -> str:
        return f"{self.action}-by-{self.actor}-in-{self.chat_type}"


def matrix() -> list[Case]:
    cases = []
    for action in (*TYPED, *BUTTONS):
        for chat_type in CHAT_TYPES:
            actors = ("owner",) if chat_type == "private" else ACTORS
            for actor in actors:
                if action in BUTTONS and actor == "anonymous":
                    continue  # a button press always comes from a real user account
                cases.append(Case(action, actor, chat_type))
    for actor in ACTORS:
        if actor != "anonymous":
            cases.append(Case("undo-other-table", actor, "forum"))
    return cases


@pytest.fixture(scope="module")
def perm_bot(module_engine: Engine) -> Iterator[BotUnderTest]:
    yield from make_bot(module_engine)


@dataclass
class Scene:
    bot: BotUnderTest
    chat: Chat
    creator: User
    actor: User | None  # None: the anonymous admin

    def act(self, message: str, thread: int | None = None) -> Outcome:
        if self.actor is None:
            return self.bot.anonymous(message, self.chat, thread)
        return self.bot.say(self.actor, message, self.chat, thread)


def scene(bot: BotUnderTest, case: Case) -> Scene:
    base = 40_000_000 + fresh_id() * 10
    creator = User(base, "Ann", username=f"ann{base}", language_code="en")
    if case.chat_type == "private":
        return Scene(bot, Chat.private(creator), creator, creator)
    chat_type = "group" if case.chat_type == "group" else "supergroup"
    chat = Chat(-base, chat_type, title="perm", is_forum=case.chat_type == "forum")
    bot.api.add_chat(chat)
    bot.api.set_member(chat.id, creator, "creator")
    if case.actor == "anonymous":
        return Scene(bot, chat, creator, None)
    if case.actor == "creator":
        return Scene(bot, chat, creator, creator)
    actor = User(base + 1, "Zoe", username=f"zoe{base}", language_code="en")
    bot.api.set_member(chat.id, actor, case.actor)
    return Scene(bot, chat, creator, actor)


def seasons(engine: Engine, chat_id: int) -> list[tuple[int, bool]]:
    with engine.connect() as conn:
        rows = conn.execute(
            text("SELECT number, archived_at IS NOT NULL FROM season WHERE chat_id = :c"),
            {"c": chat_id},
        )
        return sorted((int(n), bool(a)) for n, a in rows)


def chat_row(engine: Engine, chat_id: int) -> tuple[object, ...] | None:
    with engine.connect() as conn:
        row = conn.execute(
            text("SELECT lang, stake, sisuang, zerosum FROM chat WHERE id = :c"), {"c": chat_id}
        ).first()
        return tuple(row) if row else None


def refused(outcome: Outcome) -> bool:
    return outcome.warned


def ids_of(s: Scene) -> list[int]:
    return [s.chat.id]


@pytest.mark.parametrize("case", matrix(), ids=str)
def test_admin_only_actions(perm_bot: BotUnderTest, case: Case) -> None:
    bot = perm_bot
    s = scene(bot, case)
    if case.action == "undo-other-table":
        check_undo_other_table(bot, s, case)
        return
    # a season with a hand and a guest, set up by the creator
    prelude = bot.say(s.creator, "/new 510k3", s.chat)
    assert not prelude.errors, describe(prelude.errors)
    for message in ("/seats Ann Gus Hal", "/r 1=50 2=30 3=20 out 1 2"):
        assert not bot.say(s.creator, message, s.chat).errors
    if case.action == "reset-button":
        ask = bot.say(s.creator, "/reset", s.chat)
        assert ask.sent and ask.sent[0].buttons, ask.texts
        data = ask.sent[0].buttons[0][0]["callback_data"]
        before = chat_snapshot(bot.engine, [s.chat.id])
        assert s.actor is not None
        outcome = bot.press(s.actor, s.chat, ask.sent[0].message_id, data)
    else:
        before = chat_snapshot(bot.engine, [s.chat.id])
        outcome = s.act(TYPED[case.action])
    assert not outcome.errors, describe(outcome.errors)
    after_seasons = seasons(bot.engine, s.chat.id)
    if not case.allowed:
        assert refused(outcome), f"{case}: not refused: {outcome.texts}"
        if outcome.texts:
            assert outcome.texts[-1].startswith(WARNING) or outcome.answers[0].show_alert
        assert chat_snapshot(bot.engine, [s.chat.id]) == before, f"{case} changed data"
    else:
        assert not refused(outcome), f"{case}: refused: {outcome.texts} {outcome.answers}"
        if case.action in ("reset-confirm", "reset-button"):
            assert after_seasons == [(1, True), (2, False)], after_seasons
        elif case.action == "reset":
            assert "Archive season 1" in outcome.texts[0] and outcome.sent[0].buttons
            assert after_seasons == [(1, False)]
        elif case.action.startswith("set-"):
            lang, stake, sisuang, zerosum = chat_row(bot.engine, s.chat.id) or (None,) * 4
            assert {
                "set-stake": Fraction(str(stake or 0)) == Fraction(1, 2),
                "set-lang": lang == "zh",
                "set-sisuang": bool(sisuang),
                "set-zerosum": bool(zerosum),
            }[case.action], case
        elif case.action == "link":
            assert "linked" in outcome.texts[0]


def check_undo_other_table(bot: BotUnderTest, s: Scene, case: Case) -> None:
    """The Undo button of a hand whose table was since replaced by another (/new)."""
    assert s.actor is not None
    bot.say(s.creator, "/new 510k3", s.chat, 11)
    bot.say(s.creator, "/seats Ann Gus Hal", s.chat, 11)
    hand = bot.say(s.creator, "/r 1=50 2=30 3=20 out 1 2", s.chat, 11).sent[0]
    bot.say(s.creator, "/new mahjong", s.chat, 11)
    data = hand.buttons[0][0]["callback_data"]
    before = chat_snapshot(bot.engine, [s.chat.id])
    outcome = bot.press(s.actor, s.chat, hand.message_id, data)
    assert not outcome.errors, describe(outcome.errors)
    if case.allowed:
        assert not refused(outcome), outcome.answers
    else:
        assert refused(outcome), f"{case}: another table's hand was undone"
        assert chat_snapshot(bot.engine, [s.chat.id]) == before


# --------------------------------------------------------------------------- forged data


@pytest.fixture
def any_bot(engine: Engine) -> Iterator[BotUnderTest]:
    """The bot on SQLite and on PostgreSQL (conftest's ``engine``)."""
    yield from make_bot(engine)


@dataclass
class Table:
    bot: BotUnderTest
    chat: Chat
    users: list[User]

    def say(self, message: str, user: int = 0, thread: int | None = None) -> Outcome:
        outcome = self.bot.say(self.users[user], message, self.chat, thread)
        assert not outcome.errors, f"{message}: {describe(outcome.errors)}"
        return outcome

    def last_event(self, kind: str = "hand") -> int:
        with self.bot.engine.connect() as conn:
            return int(
                conn.execute(
                    text("SELECT max(id) FROM event WHERE chat_id = :c AND kind = :k"),
                    {"c": self.chat.id, "k": kind},
                ).scalar_one()
            )


def new_table(bot: BotUnderTest, chat_id: int, forum: bool = False) -> Table:
    base = 50_000_000 + fresh_id() * 10
    chat = Chat(chat_id, "supergroup", title="forged", is_forum=forum)
    bot.api.add_chat(chat)
    users = [User(base + i, n, language_code="en") for i, n in enumerate(("Ann", "Bob", "Cat"))]
    bot.api.set_member(chat.id, users[0], "creator")
    for user in users[1:]:
        bot.api.set_member(chat.id, user, "member")
    return Table(bot, chat, users)


def seat(table: Table, thread: int | None = None) -> None:
    table.say("/new 510k3", thread=thread)
    table.say("/seats Ann Bob Cat", thread=thread)


def press_refused(table: Table, message_id: int, data: str, user: int = 1) -> None:
    """The press is answered with an alert (or harmlessly) and changes nothing in the ledger."""
    bot = table.bot
    before = chat_snapshot(bot.engine, [table.chat.id])
    outcome = bot.press(table.users[user], table.chat, message_id, data)
    assert not outcome.errors, f"{data!r}: {describe(outcome.errors)}"
    assert len(outcome.answers) == 1, f"{data!r}: answered {len(outcome.answers)} times"
    after = chat_snapshot(bot.engine, [table.chat.id])
    for name in ("season", "event", "transfer", "balance", "game_table", "player", "chat"):
        assert after[name] == before[name], f"{data!r} changed {name}"


def test_forged_and_stale_callback_data(any_bot: BotUnderTest) -> None:
    bot = any_bot
    base = -(1_007_000_000_000 + fresh_id() * 10)
    a, b = new_table(bot, base), new_table(bot, base - 1)
    seat(a)
    seat(b)
    hand_a = a.say("/r 1=50 2=30 3=20 out 1 2").sent[0]
    b.say("/r 1=50 2=30 3=20 out 1 2")
    other_chat_hand = b.last_event()
    # another chat's hand
    press_refused(a, hand_a.message_id, f"v1:undo:{other_chat_hand}")
    # a hand that is not the table's last: undone alone (issue 12), once
    first = a.last_event()
    a.say("/r 1=20 2=30 3=50 out 3 2")
    older = bot.press(a.users[0], a.chat, hand_a.message_id, f"v1:undo:{first}")
    assert any(t.startswith("↩️ Undone: hand #1") for t in older.texts), older.texts
    press_refused(a, hand_a.message_id, f"v1:undo:{first}")
    # an already undone hand
    last = a.last_event()
    undone = a.say("/undo")
    assert "Undone" in undone.texts[0]
    press_refused(a, hand_a.message_id, f"v1:undo:{last}")
    # the undo event itself, and ids that do not exist
    press_refused(a, hand_a.message_id, f"v1:undo:{a.last_event('undo')}")
    for forged in ("v1:undo:0", "v1:undo:999999999", "v1:undo:2147483647"):
        press_refused(a, hand_a.message_id, forged)
    # a hand of an archived season, and the reset button of an old season
    ask = a.say("/reset").sent[0]
    old_reset = ask.buttons[0][0]["callback_data"]
    a.say("/reset confirm")
    archived_hand = first
    press_refused(a, hand_a.message_id, f"v1:undo:{archived_hand}", user=0)
    press_refused(a, ask.message_id, old_reset, user=0)
    # another chat's season in a reset button, pressed by this chat's creator
    press_refused(a, hand_a.message_id, "v1:reset:1", user=0)
    # garbage and oversized data
    garbage = (
        "",
        "garbage",
        "v1",
        "v1:",
        "v1:undo",
        "v1:undo:",
        "v1:undo:-1",
        "v1:undo:1.0",
        "v1:undo:0x10",
        "v1:undo: 1",
        "v1:undo:1:2",
        "v1:reset:",
        "v1:reset:abc",
        "v2:undo:1",
        "V1:UNDO:1",
        "v1:w:",
        "v1:w:9",
        "v1:w:1.zz",
        "v1:w:1.pao.1",
        "v1:w:1.zimo.-.jihu.9.go",
        "v1:w:1.zimo.-.nope.0.go",
        "v1:cancel:now",
        "v1:" + "x" * 61,
        "v1:undo:" + "1" * 56,
        "<b>x</b>",
        "'; DROP TABLE event; --",
        "\x00",
    )
    for data in garbage:
        press_refused(a, hand_a.message_id, data)


@pytest.mark.parametrize("data", ["v1:undo:2147483648", "v1:undo:999999999999999999"])
def test_forged_ids_beyond_the_integer_column(any_bot: BotUnderTest, data: str) -> None:
    """Ids the callback parser accepts (18 digits) but an INTEGER column cannot hold."""
    bot = any_bot
    t = new_table(bot, -(1_009_000_000_000 + fresh_id()))
    seat(t)
    hand = t.say("/r 1=50 2=30 3=20 out 1 2").sent[0]
    outcome = bot.press(t.users[1], t.chat, hand.message_id, data)
    assert not outcome.errors, describe(outcome.errors)
    assert len(outcome.answers) == 1 and outcome.answers[0].show_alert


def test_forged_undo_of_another_topic_is_refused_for_members(any_bot: BotUnderTest) -> None:
    """The forum case of the matrix on both databases."""
    bot = any_bot
    t = new_table(bot, -(1_008_000_000_000 + fresh_id()), forum=True)
    seat(t, 11)
    seat(t, 22)
    here = t.say("/r 1=50 2=30 3=20 out 1 2", thread=11).sent[0]
    t.say("/r 1=20 2=30 3=50 out 3 2", thread=22)
    other = t.last_event()
    before = chat_snapshot(bot.engine, [t.chat.id])
    outcome = bot.press(t.users[2], t.chat, here.message_id, f"v1:undo:{other}")
    assert not outcome.errors, describe(outcome.errors)
    assert outcome.warned, "a member undid another topic's hand with a forged button"
    assert chat_snapshot(bot.engine, [t.chat.id]) == before
