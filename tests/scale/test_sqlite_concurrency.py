"""One bot process on SQLite: many chats write at once from worker threads, with redeliveries.

The bot runs each service call in a worker thread (``asyncio.to_thread``), so one process on
SQLite sees concurrent transactions on one file. Here ``CHATS`` threads each play a chat's script
through ``Service.execute`` on one engine (as the bot does), all at once; about ``DUPLICATES`` of
the updates are executed a second time by another thread (at once, or a few updates later).
Nothing may fail with "database is locked" (writers take the lock with BEGIN IMMEDIATE and wait
up to the busy timeout), every hand is recorded exactly once, and exactly one delivery of each
update does the work while its duplicates answer "already done".
"""

from __future__ import annotations

import random
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from sqlalchemy.engine import Engine

from bot.commands.parsing import ParseError, parse
from service.context import Actor, Ctx
from service.core import Service
from service.errors import ServiceError
from service.replies import Info, Recorded, Reply
from tests.scale.scenario import ChatScript, Step, build_scripts, interleave, ledger_problems

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

CHATS = 8
UPDATES = 320
DUPLICATES = 0.12
SEED = 4242
ALREADY_DONE = "Already done."


def is_repeat(reply: Reply) -> bool:
    """The answer to an update that was already processed."""
    return (isinstance(reply, Recorded) and reply.repeated) or (
        isinstance(reply, Info) and reply.msgid == ALREADY_DONE
    )


def deliver(service: Service, script: ChatScript, step: Step) -> Reply | Exception:
    """One delivery of an update, as the bot's handler makes it (parse, then execute)."""
    ctx = Ctx(
        chat_id=script.chat_id,
        actor=Actor(900_000 + script.index * 10 + step.sender, f"Player{step.sender + 1}"),
        update_id=step.update_id,
        text=step.text,
    )
    try:
        return service.execute(ctx, parse(step.text))
    except (ParseError, ServiceError) as err:
        return err


def test_concurrent_chats_on_one_sqlite_file(sqlite_engine: Engine) -> None:
    scripts = build_scripts(SEED, chats=CHATS, updates=UPDATES, first_chat_id=-100_770_000_001)
    interleave(scripts, SEED, first_update_id=1)
    service = Service(sqlite_engine)
    start = threading.Barrier(CHATS)
    problems: list[str] = []
    lock = threading.Lock()

    def complain(message: str) -> None:
        with lock:
            problems.append(message)

    with ThreadPoolExecutor(CHATS, "chat") as chats, ThreadPoolExecutor(4, "redeliver") as again:

        def check(script: ChatScript, step: Step, replies: list[Reply | Exception]) -> None:
            where = f"chat {script.chat_id} update {step.update_id} {step.text!r}"
            unexpected = [r for r in replies if isinstance(r, Exception) and not step.error]
            errors = [r for r in replies if isinstance(r, ServiceError | ParseError)]
            if unexpected:
                complain(f"{where}: {unexpected[0]!r}")
            elif step.error:
                if len(errors) != len(replies):
                    complain(f"{where}: should have been refused, got {replies}")
            elif sum(not is_repeat(r) for r in replies if not isinstance(r, Exception)) != 1:
                complain(f"{where}: not exactly one first delivery among {replies}")

        def check_late(script: ChatScript, step: Step, reply: Reply | Exception) -> None:
            if isinstance(reply, Exception) if step.error else is_repeat(reply):
                return
            complain(f"chat {script.chat_id}: late duplicate of {step.text!r} got {reply!r}")

        def play(script: ChatScript) -> None:
            rng = random.Random(SEED + script.index)
            later: list[tuple[int, Step]] = []  # (redelivered with step #, step)
            start.wait()
            for position, step in enumerate(script.steps):
                late = [
                    (old, again.submit(deliver, service, script, old))
                    for due, old in later
                    if due <= position
                ]
                later = [(due, old) for due, old in later if due > position]
                twin = None
                roll = rng.random()
                if roll < DUPLICATES / 2:  # redelivered at once, by another thread
                    twin = again.submit(deliver, service, script, step)
                elif roll < DUPLICATES:  # redelivered a few updates later
                    later.append((position + rng.randint(1, 6), step))
                reply = deliver(service, script, step)
                check(script, step, [reply] + ([twin.result()] if twin is not None else []))
                for old, future in late:
                    check_late(script, old, future.result())
            for _, old in later:
                check_late(script, old, deliver(service, script, old))

        started = time.monotonic()
        for future in [chats.submit(play, s) for s in scripts]:
            future.result()
        seconds = time.monotonic() - started

    steps = sum(len(s.steps) for s in scripts)
    print(f"\nsqlite: {steps} updates of {CHATS} chats in {seconds:.1f} s")
    assert not problems, "\n".join(problems[:20])
    problems = ledger_problems(sqlite_engine, scripts)
    assert not problems, "\n".join(problems)
