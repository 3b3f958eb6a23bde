"""Group → supergroup in any order (issue 15.12): a command in the new supergroup processed
before the migration messages, the two messages in either order, a late write for the old id —
the records end up merged in the supergroup, exactly, and the move is logged."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from tests.emulator.api import Chat, User
from tests.reliability.harness import BotUnderTest, fresh_id, make_bot


@pytest.fixture
def bot(engine: Engine) -> Iterator[BotUnderTest]:
    """On SQLite and on PostgreSQL (shared by the session: ids of this module's own)."""
    yield from make_bot(engine)


def people() -> list[User]:
    return [
        User(fresh_id() + 91_500_000, name, language_code="en")
        for name in ("Ann", "Bob", "Cat", "Dan")
    ]


def seat(bot: BotUnderTest, chat: Chat, users: list[User]) -> None:
    bot.say(users[0], "/new mahjong", chat)
    for user in users:
        bot.say(user, "/join", chat)


def migrate(bot: BotUnderTest, old: Chat) -> tuple[Chat, dict[str, Any], dict[str, Any]]:
    """Upgrade the group; the two service messages are held back (not processed yet)."""
    new_id = -1_000_915_000_000 - fresh_id()
    to_update = bot.api.migrate_group(old.id, new_id)
    held = bot.api.take_updates()
    from_update = next(u for u in held if "migrate_from_chat_id" in u["message"])
    assert to_update["message"]["migrate_to_chat_id"] == new_id
    return Chat(new_id, "supergroup", title=old.title), to_update, from_update


def old_group(bot: BotUnderTest, users: list[User]) -> Chat:
    chat = Chat(-4_915_000 - fresh_id(), "group", title="small")
    bot.api.add_chat(chat)
    for user in users:
        bot.api.set_member(chat.id, user, "member")
    return chat


def texts(bot: BotUnderTest, user: User, command: str, chat: Chat) -> str:
    return "\n".join(bot.say(user, command, chat).texts)


@pytest.mark.parametrize("order", ["from_first", "to_first"])
def test_a_hand_in_the_supergroup_before_the_migration_messages_is_merged(
    bot: BotUnderTest, order: str, caplog: pytest.LogCaptureFixture
) -> None:
    users = people()
    ann, dan = users[0], users[3]
    old = old_group(bot, users)
    seat(bot, old, users)
    bot.say(ann, "/hu Ann zimo", old)  # #1: Ann +9
    bot.say(ann, "/hu Bob pao Cat", old)  # #2: Bob +3, Cat -3
    new, to_update, from_update = migrate(bot, old)
    # A second worker: the supergroup's first command is processed before either message.
    seat(bot, new, users)
    assert "Hand #1" in texts(bot, dan, "/hu Dan zimo", new)  # the supergroup's own count
    caplog.set_level(logging.INFO, logger="storage.gateway.chat_move")
    first, second = (from_update, to_update) if order == "from_first" else (to_update, from_update)
    assert not bot.process(first).errors and not bot.process(second).errors
    assert any("merged into" in r.getMessage() for r in caplog.records)
    standings = texts(bot, ann, "/standings", new)
    assert "Ann +6" in standings and "Dan +6" in standings  # 9-3 and 9-3: both chats' hands
    assert "Bob -4" in standings and "Cat -8" in standings  # zero-sum over all three hands
    history = texts(bot, ann, "/history", new)
    # Hands count per table and season: each chat's table keeps its own numbers in the merged
    # season (the old group's #1 and #2, the supergroup's #1), in the order they were played.
    assert history.index("/hu Ann zimo") < history.index("/hu Bob pao") < history.index("/hu Dan")
    with bot.engine.connect() as conn:
        rows = conn.execute(
            text("SELECT seq, hand_no FROM event WHERE chat_id = :c ORDER BY seq"), {"c": new.id}
        ).all()
        players = conn.execute(
            text("SELECT count(*) FROM player WHERE chat_id = :c"), {"c": new.id}
        ).scalar_one()
        stranded = conn.execute(
            text("SELECT count(*) FROM event WHERE chat_id = :c"), {"c": old.id}
        ).scalar_one()
    assert [tuple(r) for r in rows] == [(1, 1), (2, 2), (3, 1)] and players == 4 and stranded == 0
    stats = texts(bot, ann, "/stats", new)  # the kept statistics of both chats, folded
    assert "3 hand(s)" in stats and "Dan +6\n  hands 3 · wins 1 (self-drawn 1)" in stats
    assert "Undone" in texts(bot, dan, "/undo", new)  # the supergroup's table is the open one
    assert "Dan -3\n  hands 2 · wins 0" in texts(bot, ann, "/stats", new)
    assert "Dan" not in texts(bot, ann, "/standings", new).split("Ann")[0]
    reply = texts(bot, ann, "/hu Ann zimo", new)
    assert "Hand #2" in reply  # the supergroup's table goes on (its undone #1 keeps its number)
    bot.check_invariants()


def test_a_late_write_for_the_old_group_lands_in_the_supergroup(bot: BotUnderTest) -> None:
    users = people()
    ann = users[0]
    old = old_group(bot, users)
    seat(bot, old, users)
    late = bot.api.send_text(old, ann, "/hu Ann zimo")  # sent before the upgrade
    bot.api.take_updates()
    new, to_update, from_update = migrate(bot, old)
    bot.process(to_update)
    bot.process(from_update)
    bot.process(late)  # its answer cannot reach the old group any more; the hand is kept
    assert "Ann +9" in texts(bot, ann, "/standings", new)
    with bot.engine.connect() as conn:
        chats = conn.execute(
            text("SELECT count(*) FROM chat WHERE id = :c"), {"c": old.id}
        ).scalar_one()
    assert chats == 0
    bot.check_invariants()


def test_moving_twice_or_an_empty_group_changes_nothing(bot: BotUnderTest) -> None:
    users = people()
    old = old_group(bot, users)
    seat(bot, old, users)
    bot.say(users[0], "/hu Ann zimo", old)
    new, to_update, from_update = migrate(bot, old)
    for update in (to_update, from_update, to_update):
        assert not bot.process(update).errors
    assert "Ann +9" in texts(bot, users[0], "/standings", new)
    bot.check_invariants()


def test_free_rounds_and_transfers_are_merged_with_their_players_and_statistics(
    bot: BotUnderTest,
) -> None:
    """A free table in both chats: the records' data name the kept players (a round's and a
    transfer's `net`), the kept statistics of the free game are folded, and an undo in the
    supergroup subtracts exactly its round."""
    users = people()
    ann, bob, cat = users[0], users[1], users[2]
    old = old_group(bot, users)
    bot.say(ann, "/new free 斗地主", old)
    for user in users:
        bot.say(user, "/join", old)
    bot.say(ann, "/s Ann+10 Bob Cat-2", old)  # Bob -8
    bot.say(ann, "/pay Cat Ann 2", old)
    new, to_update, from_update = migrate(bot, old)
    bot.say(ann, "/new free 斗地主", new)
    for user in users:
        bot.say(user, "/join", new)
    bot.say(bob, "/s Bob+4 Ann", new)
    assert not bot.process(from_update).errors and not bot.process(to_update).errors
    with bot.engine.connect() as conn:
        kept = {
            int(pid): name
            for pid, name in conn.execute(
                text("SELECT id, name FROM player WHERE chat_id = :c"), {"c": new.id}
            )
        }
        nets = [
            json.loads(data) if isinstance(data, str) else data
            for (data,) in conn.execute(
                text("SELECT data FROM event WHERE chat_id = :c AND kind IN ('hand', 'pay')"),
                {"c": new.id},
            )
        ]
    assert len(kept) == 4 and len(nets) == 3
    assert all(int(pid) in kept for data in nets for pid in data["net"])
    stats = texts(bot, ann, "/stats", new)
    assert "2 round(s)" in stats
    assert "Ann +8\n  rounds 2 · won 1 · biggest +10" in stats  # 10 + 2 - 4
    assert "Bob -4\n  rounds 2 · won 1 · biggest +4" in stats
    assert "Cat -4\n  rounds 2 · won 0" in stats  # the transfer: in the net, no round
    assert "Undone" in texts(bot, cat, "/undo", new)  # the supergroup's round
    stats = texts(bot, ann, "/stats", new)
    assert "1 round(s)" in stats and "Bob -8\n  rounds 1 · won 0\n" in stats
    bot.check_invariants()
