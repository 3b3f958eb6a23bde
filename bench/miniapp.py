"""``python -m bench.miniapp [HANDS]``: the Mini App's server time and page weight at HANDS
(default 10,000) hands of history.

A chat plays 100 hands through the bot (mahjong, then 510K), its ledger is bulk-replicated
(``bench.ledger``) to HANDS, and the app's endpoints are timed over loopback HTTP with signed
launch data: ``view`` (every page's data: standings, chart, settle-up, the last 30 hands, seasons,
the table), ``history`` of 200 hands, and ``check`` (a tap, run and rolled back), each in wall
and CPU time (the process's, server and client: a fair figure on a loaded machine); the first
view (``view_first``: the chart's running balances read from the whole season) is reported apart.
Prints one JSON object: medians in milliseconds, the view's JSON size and the page's static
weight in bytes.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

import httpx

from bench.harness import migrated_engine, new_api, players
from bench.history import play
from bench.standings import CHAT, SMALL_HANDS, build, history
from bench.timing import median
from bot.app import build_application
from bot.console.offline import OfflineRequest
from bot.miniapp import auth
from bot.miniapp import server as miniapp
from bot.miniapp.server import STATIC
from bot.settings import Settings
from service.app import Place

TOKEN = "123:BENCH"
REPS = 30
REPORT = {
    "kind": "report",
    "entries": [{"player": p, "table": t} for p, t in ((1, 30), (2, 20), (3, 40), (4, 10))],
    "out": [1, 3],
}


async def measure(path: Path, reps: int = REPS) -> dict[str, float | int]:
    url = f"sqlite:///{path}"
    engine = migrated_engine(url)
    api = new_api([CHAT])
    config = Settings.given(token=TOKEN, database_url=url, rate_limit=False, flood=None)
    app = build_application(config, engine=engine, request=OfflineRequest(api))
    await app.initialize()
    user = players(0)[0]
    token = await asyncio.to_thread(app.bot_data["service"].app.token, Place(CHAT.id))
    launch = {
        "auth_date": str(int(time.time())),
        "start_param": token,
        "user": json.dumps({"id": user.id, "first_name": user.first_name}),
    }
    headers = {"X-Telegram-Init-Data": auth.sign(launch, TOKEN), "X-Jifen-Chat": token}
    routes = miniapp.routes(app, token=TOKEN, max_age=3600)
    timings: dict[str, list[tuple[float, float]]] = {"view": [], "history_200": [], "check": []}
    try:
        async with (
            miniapp.serving(routes, listen="127.0.0.1", port=0) as port,
            httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", headers=headers) as http,
        ):
            calls = {
                "view": lambda: http.get("/app/api/view"),
                "history_200": lambda: http.get("/app/api/history?n=200"),
                "check": lambda: http.post("/app/api/check", json={"form": REPORT}),
            }
            wall, cpu = time.perf_counter(), time.process_time()
            size = len((await http.get("/app/api/view")).content)
            first = (time.perf_counter() - wall, time.process_time() - cpu)
            for _ in range(reps + 3):
                for name, call in calls.items():
                    wall, cpu = time.perf_counter(), time.process_time()
                    response = await call()
                    timings[name].append((time.perf_counter() - wall, time.process_time() - cpu))
                    if response.status_code != 200:
                        raise RuntimeError(f"{name}: {response.status_code}")
    finally:
        await app.shutdown()
        engine.dispose()
    static = sum(f.stat().st_size for f in STATIC.iterdir())
    figures: dict[str, float | int] = {
        "view_first_ms": round(1000 * first[0], 2),
        "view_first_cpu_ms": round(1000 * first[1], 2),
    }
    for name, times in timings.items():
        figures[f"{name}_ms"] = round(1000 * median([t[0] for t in times[3:]]), 2)
        figures[f"{name}_cpu_ms"] = round(1000 * median([t[1] for t in times[3:]]), 2)
    return figures | {"view_json_bytes": size, "page_static_bytes": static}


async def main(hands: int) -> dict[str, float | int]:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        await play(workdir / "small.sqlite3", history(SMALL_HANDS), [CHAT])
        _, big, played = build(workdir, hands)
        return {"hands": played} | await measure(big)


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    print(json.dumps(asyncio.run(main(count))))
