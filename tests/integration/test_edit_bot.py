"""Issue 38 through the real PTB Application, on both databases: `/edit` as a reply to a
record's message (updates shaped as Telegram sends them), `/改 <n>`, the correction's Undo,
`/history` marks and versions, a redelivered update recorded once."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.engine import Engine
from telegram import Update

from tests.emulator.api import Chat, FakeBotApi, OutboxEntry
from tests.integration.test_bot import (
    ANN,
    BOB,
    CAT,
    DAN,
    PLAYERS,
    Harness,
    plain,
    running,
    undo_button,
)

_ids = itertools.count(-1_003_800_000_000, -1)


@pytest.fixture
async def bot(engine: Engine) -> AsyncIterator[tuple[Harness, Chat]]:
    chat_id = next(_ids)
    # the databases are shared between tests: update ids of its own
    api = FakeBotApi(first_update_id=(-chat_id - 1_003_800_000_000) * 10_000 + 7_380_000_000)
    group = Chat(chat_id, "supergroup", title="edits")
    api.add_chat(group)
    for user in PLAYERS:
        api.set_member(group.id, user, "member")
    api.set_member(group.id, ANN, "creator")
    async with running(api, engine) as app:
        yield Harness(api, app), group


async def seat(bot: Harness, group: Chat, game: str = "mahjong") -> None:
    await bot.say(ANN, f"/new {game}", group)
    for user in PLAYERS:
        await bot.say(user, "/join", group)


async def test_a_reply_corrects_the_hand_and_its_undo_brings_it_back(
    bot: tuple[Harness, Chat],
) -> None:
    harness, group = bot
    await seat(harness, group)
    first = await harness.say(CAT, "/hu Ann pao Bob pph", group)
    await harness.say(CAT, "/hu Bob zimo", group)
    entry, _ = undo_button(first)
    fixed = await harness.deliver(DAN, "/edit /hu Ann pao Bob pph qys", group, entry.message_id)
    text = plain(fixed)
    assert "#1 corrected" in text and "Bob -9 → -18" in text and "by Dan" in text
    assert "An earlier hand" in text
    history = await harness.text(ANN, "/history", group)
    assert "#1 ✎" in history and "#2 ✎" not in history
    versions = await harness.text(ANN, "/history 1", group)
    assert "every version" in versions and "/hu Ann pao Bob pph qys (now)" in versions
    assert fixed is not None
    correction, data = undo_button(fixed)
    back = plain(await harness.press(BOB, correction, data, group))
    assert "#1 back as before" in back and "Bob -18 → -9" in back
    assert "Ann +6" in await harness.text(ANN, "/standings", group)  # 9 - 3


async def test_the_chinese_word_and_a_reply_to_the_correction(
    bot: tuple[Harness, Chat],
) -> None:
    harness, group = bot
    await seat(harness, group, "510k")
    await harness.say(ANN, "/r Ann=30 Bob=20 Cat=40 Dan=10 out Ann Cat", group)
    fixed = await harness.say(BOB, "/改 1 Ann=10 Bob=40 Cat=40 Dan=10 out Ann Cat", group)
    assert "#1 corrected" in plain(fixed)
    correction, _ = undo_button(fixed)
    # Another member's correction right after: told, and shown what #1 says now
    told = plain(await harness.say(CAT, "/edit 1 Ann=20 Bob=30 Cat=40 Dan=10 out Ann Cat", group))
    assert "changed meanwhile by Bob" in told and "Ann=10" in told
    # ... unless it replies to the correction's message: it corrects what it saw
    again = await harness.deliver(
        CAT, "/edit Ann=20 Bob=30 Cat=40 Dan=10 out Ann Cat", group, correction.message_id
    )
    assert "#1 corrected" in plain(again)


async def test_a_redelivered_edit_is_recorded_once(bot: tuple[Harness, Chat]) -> None:
    harness, group = bot
    await seat(harness, group)
    hand = plain(await harness.say(ANN, "/hu Ann zimo", group))
    assert "Hand #1" in hand, hand
    seq = harness.api.last_seq
    update = harness.api.send_text(group, BOB, "/edit 1 /hu Bob zimo")
    harness.api.take_updates()
    for _ in range(2):  # Telegram sends it again: the same update id
        await harness.app.process_update(Update.de_json(update, harness.app.bot))
    replies: list[OutboxEntry] = harness.api.outbox_since(seq)
    assert "#1 corrected" in replies[0].plain_text
    assert "Already done" in replies[1].plain_text
    assert "Bob +9" in await harness.text(ANN, "/standings", group)
