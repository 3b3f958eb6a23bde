"""``webhook_writes_per_reply``: the write transactions a webhook reply costs beyond its use case's.

The product's webhook handler (``bot.delivery.webhook.routes``) serves on a loopback port in this
process, over the bench's Bot API stand-in (``bench.wire``); an evening's updates (hands, kongs,
510K reports, free rounds, a transfer) are POSTed one after another as Telegram sends them, each
awaited, on SQLite and on PostgreSQL. Every transaction the product commits is counted with
SQLAlchemy's ``commit`` event; a reply's cost beyond its use case is ``commits / updates - 1``
(each update's own transaction), counted once the bot is idle again. Counted in the process,
not from the database's statistics: PostgreSQL counts the pool's pre-ping (an autocommitted
``SELECT 1`` at every checkout) as a transaction too. A revision whose webhook handler took an
outbox's sender (before revision 0022) is not driven here: ``None``.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import tornado.netutil
import tornado.web
from sqlalchemy import event
from sqlalchemy.engine import Engine
from tornado.httpserver import HTTPServer

from bench.harness import migrated_engine, new_api
from bench.wire import LeanRequest
from bench.workload import Evening, chats_of, seating, tables

SECRET = "bench-writes-Secret_1"
IDLE = 1.0  # seconds without a commit: what an update caused is done


async def _measure(engine: Engine, url: str, per_table: int) -> float | None:
    from bot.app import build_application
    from bot.delivery import webhook
    from bot.settings import Settings

    if "sender" in webhook.routes.__code__.co_varnames:  # an older revision: see its docs
        return None
    tabs = tables()
    api = new_api(chats_of(tabs))
    config = Settings.given(token="123:BENCH", database_url=url, rate_limit=False, flood=None)
    app = build_application(config, engine=engine, request=LeanRequest(api))
    await app.initialize()
    server = HTTPServer(tornado.web.Application(webhook.routes(app, "hook", SECRET)))
    sockets = tornado.netutil.bind_sockets(0, "127.0.0.1")
    server.add_sockets(sockets)
    hook = f"http://127.0.0.1:{sockets[0].getsockname()[1]}/hook"
    commits = [0]
    event.listen(engine, "commit", lambda _conn: commits.__setitem__(0, commits[0] + 1))
    headers = {"Content-Type": "application/json", webhook.SECRET_HEADER: SECRET}
    try:
        async with httpx.AsyncClient(headers=headers, timeout=30) as client:

            async def post(messages: Any) -> int:
                for message in messages:
                    api.send_text(message.chat, message.user, message.text)
                    for update in api.take_updates():
                        answer = await client.post(hook, content=json.dumps(update))
                        assert answer.status_code == 200, answer
                return len(messages)

            for table in tabs:
                await post(seating(table))
            await _idle(commits)
            before = commits[0]
            updates = await post(Evening(tabs).batch(per_table))
            await _idle(commits)
    finally:
        server.stop()
        await app.shutdown()
    return (commits[0] - before) / updates - 1


async def _idle(commits: list[int]) -> None:
    """Until no transaction commits for `IDLE` seconds."""
    while True:
        seen = commits[0]
        await asyncio.sleep(IDLE)
        if commits[0] == seen:
            return


def measure_writes(url: str, per_table: int = 2) -> float | None:
    """Write transactions per webhook reply beyond the use case's, on the database at `url`
    (None: a revision whose webhook this cannot drive)."""
    engine = migrated_engine(url)
    try:
        return asyncio.run(_measure(engine, url, per_table))
    finally:
        engine.dispose()
