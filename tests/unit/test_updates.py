"""Per-chat locks: chats run in parallel, one chat's updates keep their order."""

from __future__ import annotations

import asyncio

from bot.delivery.updates import ChatLocks


async def test_one_chat_in_order_chats_in_parallel() -> None:
    locks = ChatLocks()
    log: list[tuple[str, int, int]] = []

    async def work(chat: int, n: int, delay: float) -> None:
        async with locks.hold(chat):
            log.append(("start", chat, n))
            await asyncio.sleep(delay)
            log.append(("end", chat, n))

    await asyncio.gather(work(10, 1, 0.05), work(10, 2, 0.0), work(20, 3, 0.0))
    chat10 = [(kind, n) for kind, chat, n in log if chat == 10]
    assert chat10 == [("start", 1), ("end", 1), ("start", 2), ("end", 2)]
    assert log.index(("end", 20, 3)) < log.index(("end", 10, 1))  # chat 20 did not wait
    assert len(locks) == 0  # idle chats are forgotten
