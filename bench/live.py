"""``python -m bench.live [SECONDS]``: what 100 open Mini App pages cost the server while they
follow their tables (``bot.miniapp.live``).

25 chats of four members; each member's page (an HTTP client and connection of its own, as a
phone has) polls ``/app/api/live`` every 1.5 s with its signed launch data, about 67 polls a
second, for SECONDS (default 6) after a warm-up. The app's server runs in a process of its own
(``--serve``: the product's application and routes on a migrated SQLite file), so its CPU is
read apart from the clients': ``utime + stime`` of every thread (``/proc/<pid>/stat``).

Figures: ``live_cpu_ms_per_s_100_pages``, the server's CPU milliseconds per second that 100
pages at their pace cost (its CPU per poll, ``live_poll_cpu_us``, times 100 / 1.5 s: on a loaded
machine the clients fall behind their pace, ``live_polls_per_s``); ``..._measured``, the CPU
per second of the run as it went; the polls' median and p99 wall time;
``live_polls_refused``, polls not answered 204 (a page at its pace is never refused: must be
0); ``live_poll_db_us``, the CPU of a poll's one read alone (the token's chat and its mark:
``Service.app.live``), timed in this process.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from bench.harness import migrated_engine, new_api, players
from bench.product import Chat, OfflineRequest
from bench.timing import median
from bench.webhook import bot_env, cpu_ticks
from bot.app import build_application
from bot.miniapp import auth
from bot.miniapp import server as miniapp
from bot.settings import Settings
from service.app import Place
from service.core import Service
from storage.db import make_engine

TOKEN = "123:BENCH"
PAGES = 100
PER_CHAT = 4
INTERVAL = 1.5  # the page's pace (static/app.js: POLL)
WARMUP = 2.0
CHATS = tuple(
    Chat(-1_009_100_000 - i, "supergroup", title=f"live {i}") for i in range(PAGES // PER_CHAT)
)
TICK = os.sysconf("SC_CLK_TCK")


def _launch(user: Any, token: str) -> dict[str, str]:
    fields = {
        "auth_date": str(int(time.time())),
        "start_param": token,
        "user": json.dumps({"id": user.id, "first_name": user.first_name}),
    }
    return {"X-Telegram-Init-Data": auth.sign(fields, TOKEN), "X-Jifen-Chat": token}


async def serve(path: Path) -> None:
    """The app's server on the database at `path` (the members known to its Bot API stand-in),
    its port on stdout, until stdin closes."""
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    config = Settings.given(token=TOKEN, database_url=url, rate_limit=False, flood=None)
    app = build_application(config, engine=engine, request=OfflineRequest(new_api(CHATS)))
    await app.initialize()
    routes = miniapp.routes(app, token=TOKEN, max_age=3600)
    try:
        async with miniapp.serving(routes, listen="127.0.0.1", port=0) as port:
            print(port, flush=True)
            await asyncio.to_thread(sys.stdin.read)
    finally:
        await app.shutdown()
        engine.dispose()


async def _page(
    http: httpx.AsyncClient, headers: dict[str, str], until: float, out: list[tuple[int, float]]
) -> None:
    """One open page: its first poll learns the mark, then one poll every `INTERVAL`."""
    mark = (await http.get("/app/api/live", headers=headers)).json()["v"]
    await asyncio.sleep(random.uniform(0, INTERVAL))  # pages opened at different moments
    while time.perf_counter() < until:
        start = time.perf_counter()
        answer = await http.get(f"/app/api/live?v={mark}", headers=headers)
        out.append((answer.status_code, time.perf_counter() - start))
        await asyncio.sleep(max(0.0, INTERVAL - (time.perf_counter() - start)))


def prepare(path: Path) -> tuple[list[dict[str, str]], float]:
    """The chats' app tokens made, every page's headers, and the poll's reads timed (µs)."""
    engine = migrated_engine(f"sqlite:///{path}")
    service = Service(engine)
    pages = []
    for index, chat in enumerate(CHATS):
        token = service.app.token(Place(chat.id))
        pages += [_launch(user, token) for user in players(index)]
    token = pages[0]["X-Jifen-Chat"]
    start = time.process_time()
    for _ in range(500):
        assert service.app.live(token) is not None
    engine.dispose()
    return pages, 1e6 * (time.process_time() - start) / 500


async def drive(port: int, pid: int, pages: list[dict[str, str]], seconds: float) -> dict[str, Any]:
    base = f"http://127.0.0.1:{port}"
    clients = [httpx.AsyncClient(base_url=base, verify=False) for _ in pages]  # plain HTTP
    paired = list(zip(clients, pages, strict=True))
    polls: list[tuple[int, float]] = []
    try:
        warm: list[tuple[int, float]] = []
        soon = time.perf_counter() + WARMUP
        await asyncio.gather(*(_page(c, h, soon, warm) for c, h in paired))
        wall, ticks = time.perf_counter(), sum(cpu_ticks(pid))
        await asyncio.gather(*(_page(c, h, wall + seconds, polls) for c, h in paired))
        wall, cpu = time.perf_counter() - wall, (sum(cpu_ticks(pid)) - ticks) / TICK
    finally:
        for client in clients:
            await client.aclose()
    times = sorted(t for _, t in polls)
    per_poll = cpu / max(1, len(polls))
    return {
        "live_cpu_ms_per_s_100_pages": round(1000 * per_poll * PAGES / INTERVAL, 1),
        "live_cpu_ms_per_s_measured": round(1000 * cpu / wall, 1),
        "live_poll_cpu_us": round(1e6 * per_poll, 1),
        "live_poll_ms": round(1000 * median(times), 2),
        "live_poll_p99_ms": round(1000 * times[int(0.99 * (len(times) - 1))], 2),
        "live_polls_per_s": round(len(polls) / wall, 1),
        "live_polls_refused": sum(1 for status, _ in polls if status != 204),
    }


def measure_live(workdir: Path, seconds: float = 6.0) -> dict[str, Any]:
    """The figures above, on a database of its own under `workdir`."""
    workdir.mkdir(parents=True, exist_ok=True)
    path = workdir / "live.sqlite3"
    pages, db_us = prepare(path)
    command = [sys.executable, "-m", "bench.live", "--serve", str(path)]
    server = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=bot_env()
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        port = int(server.stdout.readline())
        figures = asyncio.run(drive(port, server.pid, pages, seconds))
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    return figures | {"live_poll_db_us": round(db_us, 1)}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        asyncio.run(serve(Path(sys.argv[2])))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            length = float(sys.argv[1]) if len(sys.argv) > 1 else 6.0
            print(json.dumps(measure_live(Path(tmp), length)))
