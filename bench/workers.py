"""``pg_2workers_rate``: the highest rate of mixed commands two webhook workers on PostgreSQL
hold with reply p99 ≤ 100 ms, against one worker in the same run (issue 41).

Each worker is ``jifen run`` in webhook mode (its tornado server, outbox and sender), on one
PostgreSQL database, talking to the stand-in Bot API of ``bench/bot_api_stand_in.py`` in this
process, which also plays Telegram: it POSTs each update to one worker's webhook, round robin
over the workers (as the compose file's proxy spreads them), never waiting for an answer.

The ``chats`` supergroups are set up once (``/new mahjong`` and ``/seats Ann Bob Cat Dan``
through the service, not timed) and each run starts from a copy of that database. A run is
steps of rising rate (``RATES``) of the webhook bench's mahjong evening
(``bench.webhook.MAHJONG``: hands of every kind, kongs, drawn hands), round robin over the
chats, each step ``seconds`` long after ``WARM`` seconds at its rate (and before the first
step, ``WARM_UP`` seconds at the first rate). An update's reply time is from its POST written
to its chat's reply (``sendMessage``) read by the stand-in: what a player waits for. A step
holds when every update is answered 200 and replied to and its p99 is at most ``P99_MS``; the
figure is the last rate that held before the first that did not. One worker and two workers
alternate, ``runs`` times; the figures are the medians, the machine's load beside them.

``python -m bench.workers [--quick] [--chats N] [--runs K] [--workers 1 2]`` prints the JSON.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import httpx

from bench import pg
from bench.bot_api_stand_in import StandIn, serve
from bench.harness import migrated_engine
from bench.timing import median, rounded
from bench.webhook import (
    HOOK_PATH,
    MAHJONG,
    MAHJONG_MARK,
    SECRET,
    Bot,
    Item,
    percentile,
    start_bot,
    update_body,
    user,
    wait_ready,
)
from bot.commands.parsing import parse
from service.context import Actor, Ctx
from service.core import Service

P99_MS = 100.0
RATES = (10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 120, 140, 160, 180, 200, 250, 300, 400, 500)
WARM = 1.0  # seconds of each step before its measured window
WARM_UP = 3.0  # seconds at the first rate before the first step (a fresh worker's first updates)
REPLY_TIMEOUT = 30.0


def log(message: str) -> None:
    print(f"[bench.workers {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class Poster:
    """POSTs updates to the workers' webhooks in turn over keep-alive connections (httpx)."""

    def __init__(self, workers: Sequence[Bot]) -> None:
        limits = httpx.Limits(max_connections=400, max_keepalive_connections=400)
        headers = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
        self.http = httpx.AsyncClient(limits=limits, headers=headers, timeout=REPLY_TIMEOUT)
        self.urls = [f"http://127.0.0.1:{w.port}/{HOOK_PATH}" for w in workers]
        self.turn = 0

    async def post(self, body: bytes) -> tuple[int, float, float]:
        """(status, when sent, when answered), on the next worker."""
        url = self.urls[self.turn % len(self.urls)]
        self.turn += 1
        sent = time.monotonic()
        try:
            status = (await self.http.post(url, content=body)).status_code
        except httpx.HTTPError:
            status = 0
        return status, sent, time.monotonic()


@dataclass
class Load:
    """The chats, where the evening is in each, and the updates sent to each in order."""

    chats: int
    next_update: int = 1
    turn: int = 0  # the chat whose turn it is (round robin)
    lines: dict[int, int] = field(default_factory=dict)  # chat → its next line of MAHJONG
    sent: dict[int, list[float]] = field(default_factory=dict)  # chat id → POST times

    def item(self, chat: int, text: str) -> tuple[int, bytes]:
        body = update_body(self.next_update, Item(chat, 0, text, "window"))
        self.next_update += 1
        return chat_id(chat), body

    def evening(self) -> tuple[int, bytes]:
        """The next chat's next line of the evening."""
        chat, self.turn = self.turn, (self.turn + 1) % self.chats
        line = self.lines.get(chat, 0)
        self.lines[chat] = line + 1
        return self.item(chat, MAHJONG[line % len(MAHJONG)])


async def _send(poster: Poster, load: Load, items: Sequence[tuple[int, bytes]], rate: float) -> Any:
    """The items at ``rate`` a second, each at its time whatever came back; their answers."""
    start = time.monotonic()

    async def one(index: int, body: bytes) -> tuple[int, float, float]:
        await asyncio.sleep(max(0.0, start + index / rate - time.monotonic()))
        return await poster.post(body)

    answers = await asyncio.gather(*(one(i, body) for i, (_, body) in enumerate(items)))
    for (chat, _), (_, sent, _) in zip(items, answers, strict=True):
        load.sent.setdefault(chat, []).append(sent)
    return answers


async def _replied(api: StandIn, load: Load) -> dict[int, list[tuple[float, str]]]:
    """Each chat's replies (when, what), once every update sent so far has its reply."""
    expected = sum(len(times) for times in load.sent.values())
    deadline = time.monotonic() + REPLY_TIMEOUT
    while len(api.calls.sent) < expected:
        if time.monotonic() > deadline:
            counts = {c: len(t) for c, t in load.sent.items()}
            got: dict[int, int] = {}
            for reply in api.calls.sent:
                got[reply.chat_id] = got.get(reply.chat_id, 0) + 1
            wrong = {c: (n, got.get(c, 0)) for c, n in counts.items() if got.get(c, 0) != n}
            texts = [r.text[:200] for r in api.calls.sent if r.chat_id in wrong]
            raise RuntimeError(f"{len(api.calls.sent)} replies of {expected}: {wrong} {texts}")
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.2)
    replies: dict[int, list[tuple[float, str]]] = {}
    for reply in api.calls.sent:
        replies.setdefault(reply.chat_id, []).append((reply.at, reply.text))
    return replies


def chat_id(chat: int) -> int:
    return -1_008_000_000_000 - chat  # bench.webhook.update_body's chats


async def _step(api: StandIn, poster: Poster, load: Load, rate: int, seconds: float) -> Any:
    """One step at ``rate``: its window's reply p50/p99 (ms) and whether it held."""
    items = [load.evening() for _ in range(round((WARM + seconds) * rate))]
    before = {chat: len(times) for chat, times in load.sent.items()}
    answers = await _send(poster, load, items, rate)
    refused = sum(1 for status, _, _ in answers if status != 200)
    if refused:
        return {"rate": rate, "held": False, "refused": refused}
    replies = await _replied(api, load)
    waits, scored = [], 0
    seen: dict[int, int] = {}
    for index, (chat, _) in enumerate(items):
        k = before.get(chat, 0) + seen.get(chat, 0)
        seen[chat] = seen.get(chat, 0) + 1
        at, reply = replies[chat][k]
        scored += MAHJONG_MARK in reply
        if index >= WARM * rate:
            waits.append(1000 * (at - load.sent[chat][k]))
    if scored < 0.9 * len(items):  # the evening is refused: the set-up is wrong
        raise RuntimeError(f"{scored} of {len(items)} updates scored: {reply[:300]!r}")
    answer_ms = [1000 * (done - sent) for _, sent, done in answers[int(WARM * rate) :]]
    p99 = percentile(waits, 0.99)
    return {
        "rate": rate,
        "held": p99 <= P99_MS,
        "reply_p50_ms": round(percentile(waits, 0.5), 1),
        "reply_p99_ms": round(p99, 1),
        "answer_p99_ms": round(percentile(answer_ms, 0.99), 1),
    }


def set_up(url: str, chats: int) -> None:
    """The chats' tables opened and seated (``/new mahjong``, ``/seats Ann Bob Cat Dan``)
    through the service, as their first members would."""
    engine = migrated_engine(url)
    service = Service(engine)

    def one(chat: int) -> None:
        ann = user(chat, 0)
        ctx = Ctx(chat_id(chat), Actor(ann["id"], ann["first_name"], ann["username"], "en"))
        for line in ("/new mahjong", "/seats Ann Bob Cat Dan"):
            service.execute(replace(ctx, text=line), parse(line))

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(one, range(chats)))
    engine.dispose()


async def _run(workdir: Path, count: int, chats: int, seconds: float, template: str) -> Any:
    """``count`` workers on a copy of the set-up database: rising steps until one fails."""
    api = StandIn()
    server = await serve(api)
    api_port = int(server.sockets[0].getsockname()[1])
    with pg.fresh_database(template) as url:
        workers = [
            start_bot("jifen_pg", workdir / f"w{count}-{i}", api_port, url) for i in range(count)
        ]
        poster = Poster(workers)
        try:
            for worker in workers:
                await wait_ready(worker, api)
            load = Load(chats)
            await _step(api, poster, load, RATES[0], WARM_UP)  # caches filled, not counted
            steps = []
            for rate in RATES:
                step = await _step(api, poster, load, rate, seconds)
                steps.append(step)
                log(f"{count} worker(s) at {rate}/s: {step}")
                if not step["held"]:
                    break
        finally:
            await poster.http.aclose()
            for worker in workers:
                worker.stop()
            server.close()
    return {"rate": max((s["rate"] for s in steps if s["held"]), default=0), "steps": steps}


@dataclass(frozen=True)
class Plan:
    chats: int
    seconds: float
    runs: int


FULL = Plan(chats=2000, seconds=4.0, runs=2)
QUICK = Plan(chats=2000, seconds=3.0, runs=1)


def measure_workers(workdir: Path, plan: Plan, counts: Sequence[int] = (1, 2)) -> dict[str, Any]:
    """The figures (see the module's text); null when PostgreSQL does not answer."""
    if not pg.available():
        log("PostgreSQL does not answer: pg_2workers_rate is null")
        return {**{key(n): None for n in counts}, "detail": None}
    load = [round(os.getloadavg()[0], 2)]
    runs: dict[int, list[dict[str, Any]]] = {n: [] for n in counts}
    with pg.fresh_database() as template:
        began = time.monotonic()
        set_up(template, plan.chats)
        log(f"{plan.chats} chats set up in {time.monotonic() - began:.0f} s")
        for run in range(plan.runs):
            for n in counts:
                log(f"run {run + 1}/{plan.runs}: {n} worker(s)")
                work = _run(workdir / f"run{run}", n, plan.chats, plan.seconds, template)
                runs[n].append(asyncio.run(work))
    load.append(round(os.getloadavg()[0], 2))
    rates = {n: median([r["rate"] for r in runs[n]]) for n in counts}
    figures: dict[str, Any] = {key(n): rates[n] for n in counts}
    if 1 in rates and 2 in rates and rates[1]:
        figures["pg_2workers_vs_1"] = rounded(rates[2] / rates[1])
    figures["pg_workers_loadavg_before_after"] = load  # the machine's 1-minute load
    figures["detail"] = {
        "chats": plan.chats,
        "step_seconds": plan.seconds,
        "p99_ms_limit": P99_MS,
        "runs": {str(n): runs[n] for n in counts},
        "cpus": os.cpu_count(),
    }
    return figures


def key(workers: int) -> str:
    return f"pg_{workers}worker{'s' if workers > 1 else ''}_rate"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.workers", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one run, shorter steps")
    parser.add_argument("--chats", type=int, help="group chats (2000)")
    parser.add_argument("--runs", type=int, help="runs of each worker count (2, quick 1)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    plan = Plan(args.chats or plan.chats, plan.seconds, args.runs or plan.runs)
    with tempfile.TemporaryDirectory(prefix="jifen-workers-bench-") as workdir:
        figures = measure_workers(Path(workdir), plan, args.workers)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
