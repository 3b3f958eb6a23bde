"""``python -m bench.live [SECONDS]``: what 100 open Mini App pages cost while they follow their
tables (``bot.miniapp.live``): 25 chats of four members, each member's page polling
``/app/api/live`` every 1.5 s with its signed launch data (about 67 polls a second), for SECONDS
(default 6) over loopback HTTP on a migrated SQLite file.

Figures: ``live_cpu_ms_per_s_100_pages``, the process's CPU time per second of the run (the
server's and, in the same process, the 100 clients': an upper bound of the server's share);
``live_poll_cpu_us``, that CPU per poll; the polls' median and p99 wall time;
``live_polls_refused``, polls not answered 204 (a page at its pace is never refused: must be 0);
``live_poll_db_us``, the CPU of a poll's two reads alone (the token's chat, the chat's mark).
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.harness import migrated_engine, new_api, players
from bench.product import Chat, OfflineRequest
from bench.timing import median
from bot.app import build_application
from bot.miniapp import auth
from bot.miniapp import server as miniapp
from bot.settings import Settings

TOKEN = "123:BENCH"
PAGES = 100
PER_CHAT = 4
INTERVAL = 1.5  # the page's pace (static/app.js: POLL)
CHATS = tuple(
    Chat(-1_009_100_000 - i, "supergroup", title=f"live {i}") for i in range(PAGES // PER_CHAT)
)


def _launch(user: Any, token: str) -> dict[str, str]:
    fields = {
        "auth_date": str(int(time.time())),
        "start_param": token,
        "user": json.dumps({"id": user.id, "first_name": user.first_name}),
    }
    return {"X-Telegram-Init-Data": auth.sign(fields, TOKEN), "X-Jifen-Chat": token}


async def _page(
    http: httpx.AsyncClient, headers: dict[str, str], until: float, out: list[tuple[int, float]]
) -> None:
    """One open page (a client and connection of its own, as a phone has): its first poll
    learns the mark, then one poll every `INTERVAL`."""
    mark = (await http.get("/app/api/live", headers=headers)).json()["v"]
    await asyncio.sleep(random.uniform(0, INTERVAL))  # pages opened at different moments
    while time.perf_counter() < until:
        start = time.perf_counter()
        answer = await http.get(f"/app/api/live?v={mark}", headers=headers)
        out.append((answer.status_code, time.perf_counter() - start))
        await asyncio.sleep(max(0.0, INTERVAL - (time.perf_counter() - start)))


async def measure(path: Path, seconds: float) -> dict[str, float | int]:
    url = f"sqlite:///{path}"
    engine = migrated_engine(url)
    api = new_api(CHATS)
    config = Settings.given(token=TOKEN, database_url=url, rate_limit=False, flood=None)
    app = build_application(config, engine=engine, request=OfflineRequest(api))
    await app.initialize()
    service = app.bot_data["service"]
    pages = []
    for index, chat in enumerate(CHATS):
        token = await asyncio.to_thread(service.app_token, chat.id, 0)
        pages += [_launch(user, token) for user in players(index)]
    token = pages[0]["X-Jifen-Chat"]
    start = time.process_time()
    for _ in range(500):  # the poll's own reads: the token's chat, then the chat's mark
        service.app_mark(*service.app_place(token))
    db_us = 1e6 * (time.process_time() - start) / 500
    routes = miniapp.routes(app, token=TOKEN, max_age=3600)
    polls: list[tuple[int, float]] = []
    try:
        async with miniapp.serving(routes, listen="127.0.0.1", port=0) as port:
            base = f"http://127.0.0.1:{port}"
            clients = [httpx.AsyncClient(base_url=base, verify=False) for _ in pages]  # plain HTTP
            warm: list[tuple[int, float]] = []
            soon = time.perf_counter() + 2
            paired = list(zip(clients, pages, strict=True))
            await asyncio.gather(*(_page(c, h, soon, warm) for c, h in paired))
            wall, cpu = time.perf_counter(), time.process_time()
            until = wall + seconds
            await asyncio.gather(*(_page(c, h, until, polls) for c, h in paired))
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            for client in clients:
                await client.aclose()
    finally:
        await app.shutdown()
        engine.dispose()
    times = sorted(t for _, t in polls)
    return {
        "live_cpu_ms_per_s_100_pages": round(1000 * cpu / wall, 1),
        "live_poll_cpu_us": round(1e6 * cpu / max(1, len(polls)), 1),
        "live_poll_ms": round(1000 * median(times), 2),
        "live_poll_p99_ms": round(1000 * times[int(0.99 * (len(times) - 1))], 2),
        "live_polls_per_s": round(len(polls) / wall, 1),
        "live_polls_refused": sum(1 for status, _ in polls if status != 204),
        "live_poll_db_us": round(db_us, 1),
    }


def measure_live(workdir: Path, seconds: float = 6.0) -> dict[str, float | int]:
    """The figures above, on a database of its own under `workdir`."""
    workdir.mkdir(parents=True, exist_ok=True)
    return asyncio.run(measure(workdir / "live.sqlite3", seconds))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        length = float(sys.argv[1]) if len(sys.argv) > 1 else 6.0
        print(json.dumps(measure_live(Path(tmp), length)))
