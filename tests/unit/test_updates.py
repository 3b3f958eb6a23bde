"""Per-chat update processing: chats run in parallel, one chat's updates keep their order."""

from __future__ import annotations

import asyncio

from telegram import Chat, Message, Update

from bot.updates import PerChatProcessor


def update(update_id: int, chat_id: int) -> Update:
    chat = Chat(chat_id, "supergroup")
    return Update(update_id, message=Message(update_id, None, chat, text="x"))  # type: ignore[arg-type]


async def test_one_chat_in_order_chats_in_parallel() -> None:
    processor = PerChatProcessor(8)
    log: list[tuple[str, int, int]] = []

    async def work(u: Update, delay: float) -> None:
        log.append(("start", u.effective_chat.id, u.update_id))  # type: ignore[union-attr]
        await asyncio.sleep(delay)
        log.append(("end", u.effective_chat.id, u.update_id))  # type: ignore[union-attr]

    jobs = [(update(1, 10), 0.05), (update(2, 10), 0.0), (update(3, 20), 0.0)]
    await asyncio.gather(*(processor.process_update(u, work(u, d)) for u, d in jobs))
    chat10 = [(kind, uid) for kind, chat, uid in log if chat == 10]
    assert chat10 == [("start", 1), ("end", 1), ("start", 2), ("end", 2)]
    # Chat 20 did not wait for chat 10's slow update.
    assert log.index(("end", 20, 3)) < log.index(("end", 10, 1))
    assert processor._locks == {}  # idle chats are forgotten
