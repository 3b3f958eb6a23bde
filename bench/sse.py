"""``sse_pages_per_worker`` and ``live_cpu_ms_per_s_1000_pages``: open Mini App pages pushed to by
one worker (issue 41, ``bot.miniapp.events``).

The worker is ``jifen run`` in webhook mode with the app (``JIFEN_APP_NAME``), on a fresh
PostgreSQL database (SQLite when no server answers), its Bot API the stand-in of
``bench/bot_api_stand_in.py`` (everyone a member). The pages are this process's: each a raw
HTTP/1.1 connection of its own with its signed launch data, as a phone's.

- Pages per worker: the worker may stream to ``PAGES`` (``JIFEN_APP_STREAMS``); ``PAGES +
  EXTRA`` pages open streams to one chat (four per member, as the limit allows), in batches.
  ``sse_pages_per_worker`` is how many it holds (answered 200 and heard every commit; the rest
  must be refused 503, their pages poll). ``sse_rss_kb_per_page``: the worker's RSS (``VmRSS``)
  with them open, less its RSS before (after a warm-up of a few streams opened and closed), per
  stream. Then ``rounds`` hands are recorded in that chat by another process (this one,
  through the service: its commit notifies every worker); each page's time from the commit's
  end to its event is read on this process's clock. ``sse_event_p99_ms_2000_pages``: the median
  of the rounds' p99 (target ≤ 1 s); ``..._last_ms_...``: the median of the rounds' slowest.
- CPU with 1,000 pages on quiet chats (250 chats, four members each, no commits): the worker's
  ``utime + stime`` (``/proc/<pid>/stat``) over ``KEEPALIVE`` seconds (each stream's comment
  falls in it once), per second: ``live_cpu_ms_per_s_1000_pages``. Against it the same pages
  polling ``/app/api/live`` every 1.5 s as before: the worker's CPU per poll over ``seconds``,
  times 1,000 / 1.5 (a page's pace; on a loaded machine the pages fall behind it):
  ``live_poll_cpu_ms_per_s_1000_pages``, and ``live_cpu_vs_polling_1000_pages`` (target
  ≤ 0.1). The medians of ``runs`` windows each.

``python -m bench.sse [--quick] [--pages N]`` prints the JSON (progress on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from bench import pg
from bench.bot_api_stand_in import StandIn, serve
from bench.harness import migrated_engine
from bench.timing import median, rounded
from bench.webhook import TOKEN, Bot, cpu_ticks, memory_mb, percentile, start_bot, wait_ready
from bot.commands.parsing import parse
from bot.miniapp import auth
from bot.miniapp.events import KEEPALIVE
from service.app import Place
from service.context import Actor, Ctx
from service.core import Service

PAGES = 2000
EXTRA = 50  # pages beyond the worker's limit: refused
PER_MEMBER = 4
BATCH = 100  # pages opened at once
QUIET_CHATS = 250
POLL_EVERY = 1.5  # static/live.js: POLL
FAN_CHAT = -1_009_300_000_000
TICK = os.sysconf("SC_CLK_TCK")
WAIT = 20.0  # seconds a page's answer or event may take before the run fails
WINS = ("/hu 1 zimo", "/hu 2 zimo", "/hu 3 zimo", "/hu 4 zimo")  # never the same twice in a row


def log(message: str) -> None:
    print(f"[bench.sse {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def launch(user_id: int, token: str) -> str:
    fields = {
        "auth_date": str(int(time.time())),
        "start_param": token,
        "user": json.dumps({"id": user_id, "first_name": f"user {user_id}"}),
    }
    return auth.sign(fields, TOKEN)


class Page(asyncio.Protocol):
    """One open page's stream: its status, then each mark it is sent and when."""

    def __init__(self, request: bytes) -> None:
        self.request = request
        self.status = asyncio.get_running_loop().create_future()
        self.marks: list[tuple[float, str]] = []
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self.closed = False
        self.moved = asyncio.Event()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        transport.write(self.request)

    def data_received(self, data: bytes) -> None:
        at = time.monotonic()
        self.buffer += data
        if not self.status.done() and b"\r\n" in self.buffer:
            self.status.set_result(int(self.buffer.split(b" ", 2)[1]))
        while (start := self.buffer.find(b"event: mark\ndata: ")) >= 0:
            end = self.buffer.find(b"\n", start + 18)
            if end < 0:
                break
            self.marks.append((at, self.buffer[start + 18 : end].decode()))
            self.buffer = self.buffer[end:]
            self.moved.set()
        self.buffer = self.buffer[-64:]

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.status.done():
            self.status.set_result(0)

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()


class Poller(asyncio.Protocol):
    """One polling page's keep-alive connection (a phone's): a poll's status once answered."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = b""
        self.waiter: asyncio.Future[int] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def ask(self, request: bytes) -> asyncio.Future[int]:
        assert self.transport is not None
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return self.waiter

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        head, found, rest = self.buffer.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").lower().split("\r\n")
        sized = [int(line.split(":")[1]) for line in lines if line.startswith("content-length:")]
        if not found or len(rest) < sum(sized):
            return
        self.buffer = rest[sum(sized) :]
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(int(lines[0].split(" ", 2)[1]))

    def connection_lost(self, exc: Exception | None) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result(0)


def stream_request(port: int, token: str, user_id: int) -> bytes:
    query = urlencode({"chat": token, "init": launch(user_id, token)})
    return (
        f"GET /app/api/events?{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Accept: text/event-stream\r\n\r\n"
    ).encode()


def poll_request(port: int, token: str, user_id: int, mark: str) -> bytes:
    return (
        f"GET /app/api/live?v={mark} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"X-Telegram-Init-Data: {launch(user_id, token)}\r\nX-Jifen-Chat: {token}\r\n\r\n"
    ).encode()


async def open_pages(port: int, who: Sequence[tuple[str, int]]) -> list[Page]:
    """A stream for each (token, user), `BATCH` at a time, each answered before the next."""
    loop = asyncio.get_running_loop()
    pages: list[Page] = []
    for start in range(0, len(who), BATCH):

        async def one(token: str, user_id: int) -> Page:
            request = stream_request(port, token, user_id)
            _, page = await loop.create_connection(lambda: Page(request), "127.0.0.1", port)
            async with asyncio.timeout(WAIT):
                await page.status
                if page.status.result() == 200:
                    await page.moved.wait()  # the first mark
            return page

        pages += await asyncio.gather(*(one(*w) for w in who[start : start + BATCH]))
    return pages


@dataclass
class Setup:
    """The database's chats: the fan chat (all pages on it) and the quiet ones, their tokens."""

    fan_token: str = ""
    quiet_tokens: list[str] = field(default_factory=list)
    hands: int = 0

    def record(self, service: Service) -> None:
        """A hand in the fan chat, committed when this returns."""
        text = WINS[self.hands % len(WINS)]
        self.hands += 1
        ctx = Ctx(FAN_CHAT, Actor(900_000_001, "Ann", None, "en"), text=text)
        service.execute(ctx, parse(text))


def prepare(url: str) -> tuple[Setup, Service]:
    engine = migrated_engine(url)
    service = Service(engine)
    setup = Setup()
    ann = Ctx(FAN_CHAT, Actor(900_000_001, "Ann", None, "en"))
    for text in ("/new mahjong", "/seats Ann Bob Cat Dan"):
        service.execute(ann, parse(text))
    setup.fan_token = service.app.token(Place(FAN_CHAT))
    setup.quiet_tokens = [service.app.token(Place(FAN_CHAT - 1 - i)) for i in range(QUIET_CHATS)]
    return setup, service


async def pages_per_worker(
    worker: Bot, setup: Setup, service: Service, limit: int, rounds: int
) -> dict[str, Any]:
    """`limit + EXTRA` pages on the fan chat: how many the worker holds, their RSS, and each
    round's times from a commit to their events."""
    pid, port = worker.process.pid, worker.port
    warm = await open_pages(port, [(setup.fan_token, 1 + i) for i in range(20)])
    for page in warm:
        page.close()
    await asyncio.sleep(1.0)
    base_rss = memory_mb(pid)[0]
    who = [(setup.fan_token, 1 + i // PER_MEMBER) for i in range(limit + EXTRA)]
    pages = await open_pages(port, who)
    held = [p for p in pages if p.status.result() == 200]
    refused = sum(1 for p in pages if p.status.result() == 503)
    for page in pages:
        if page.status.result() != 200:
            page.close()  # such a page polls instead
    await asyncio.sleep(2.0)
    rss = memory_mb(pid)[0]
    p99s, lasts = [], []
    for _ in range(rounds):
        for page in held:
            page.moved.clear()
        await asyncio.to_thread(setup.record, service)
        committed = time.monotonic()
        async with asyncio.timeout(WAIT):
            await asyncio.gather(*(page.moved.wait() for page in held))
        waits = [1000 * (page.marks[-1][0] - committed) for page in held]
        p99s.append(percentile(waits, 0.99))
        lasts.append(max(waits))
        await asyncio.sleep(0.5)
    open_after = sum(1 for p in held if not p.closed)
    for page in pages:
        page.close()
    return {
        "held": len(held) if open_after == len(held) else open_after,
        "refused": refused,
        "rss_kb_per_page": 1024 * (rss - base_rss) / max(1, len(held)),
        "rss_mb_before_after": [round(base_rss, 1), round(rss, 1)],
        "event_p99_ms": median(p99s),
        "event_last_ms": median(lasts),
        "rounds_p99_ms": [round(v, 1) for v in p99s],
    }


async def quiet_cpu(worker: Bot, setup: Setup, pages: int, seconds: float) -> dict[str, Any]:
    """The worker's CPU with `pages` open streams on quiet chats, then polling instead."""
    pid, port = worker.process.pid, worker.port
    who = [
        (setup.quiet_tokens[i // PER_MEMBER % len(setup.quiet_tokens)], 10_000 + i % PER_MEMBER)
        for i in range(pages)
    ]
    streams = await open_pages(port, who)
    assert all(p.status.result() == 200 for p in streams), "a quiet page was refused"
    await asyncio.sleep(2.0)
    ticks = sum(cpu_ticks(pid))
    await asyncio.sleep(KEEPALIVE)
    streamed = (sum(cpu_ticks(pid)) - ticks) / TICK / KEEPALIVE
    marks = {w: p.marks[-1][1] for w, p in zip(who, streams, strict=True)}
    for page in streams:
        page.close()
    await asyncio.sleep(1.0)
    loop = asyncio.get_running_loop()
    pollers = []
    for token, user_id in who:
        _, poller = await loop.create_connection(Poller, "127.0.0.1", port)
        pollers.append((poller, poll_request(port, token, user_id, marks[(token, user_id)])))
    statuses: list[int] = []

    async def page(poller: Poller, request: bytes, until: float) -> None:
        await asyncio.sleep(random.uniform(0, POLL_EVERY))
        while time.monotonic() < until:
            asked = time.monotonic()
            statuses.append(await poller.ask(request))
            await asyncio.sleep(max(0.0, POLL_EVERY - (time.monotonic() - asked)))

    warm = time.monotonic() + 2.0
    await asyncio.gather(*(page(p, r, warm) for p, r in pollers))
    statuses.clear()
    began, ticks = time.monotonic(), sum(cpu_ticks(pid))
    await asyncio.gather(*(page(p, r, began + seconds) for p, r in pollers))
    wall, cpu = time.monotonic() - began, (sum(cpu_ticks(pid)) - ticks) / TICK
    for poller, _ in pollers:
        if poller.transport is not None:
            poller.transport.close()
    per_poll = cpu / max(1, len(statuses))
    return {
        "streamed_ms_per_s": 1000 * streamed,
        "polled_ms_per_s": 1000 * per_poll * pages / POLL_EVERY,
        "polled_measured_ms_per_s": 1000 * cpu / wall,
        "poll_cpu_us": 1e6 * per_poll,
        "polls_per_s": len(statuses) / wall,
        "polls_not_204": sum(1 for s in statuses if s != 204),
    }


@contextlib.contextmanager
def database() -> Iterator[str]:
    if pg.available():
        with pg.fresh_database() as url:
            yield url
    else:
        log("PostgreSQL does not answer: SQLite")
        with tempfile.TemporaryDirectory() as folder:
            yield f"sqlite:///{folder}/sse.sqlite3"


async def _measure(workdir: Path, plan: Plan) -> dict[str, Any]:
    api = StandIn()
    server = await serve(api)
    api_port = int(server.sockets[0].getsockname()[1])
    runs: list[dict[str, Any]] = []
    try:
        with database() as url:
            setup, service = await asyncio.to_thread(prepare, url)
            for run in range(plan.runs):
                rundir, streams = workdir / f"sse{run}", str(plan.pages)
                worker = start_bot(
                    "jifen",
                    rundir,
                    api_port,
                    url,
                    JIFEN_APP_NAME="bench",
                    JIFEN_APP_STREAMS=streams,
                )
                try:
                    await wait_ready(worker, api)
                    fan = await pages_per_worker(worker, setup, service, plan.pages, plan.rounds)
                    log(f"run {run + 1}/{plan.runs}: {fan}")
                    await asyncio.sleep(1.0)
                    quiet = await quiet_cpu(worker, setup, plan.quiet_pages, plan.poll_seconds)
                    log(f"run {run + 1}/{plan.runs}: {quiet}")
                    runs.append(fan | quiet)
                finally:
                    worker.stop()
            service.engine.dispose()
    finally:
        server.close()
    return {"database": url.partition(":")[0], "runs": runs}


@dataclass(frozen=True)
class Plan:
    pages: int = PAGES
    quiet_pages: int = 1000
    rounds: int = 10
    runs: int = 3
    poll_seconds: float = 10.0


FULL = Plan()
QUICK = Plan(rounds=4, runs=1, poll_seconds=6.0)


def measure_sse(workdir: Path, plan: Plan) -> dict[str, Any]:
    """The figures (see the module's text), and their detail."""
    load = [round(os.getloadavg()[0], 2)]
    result = asyncio.run(_measure(workdir, plan))
    load.append(round(os.getloadavg()[0], 2))
    runs = result["runs"]

    def mid(key: str, digits: int = 1) -> float | None:
        return rounded(median([r[key] for r in runs]), digits)

    streamed, polled = mid("streamed_ms_per_s", 2), mid("polled_ms_per_s")
    n, quiet = plan.pages, plan.quiet_pages
    return {
        "sse_pages_per_worker": int(median([r["held"] for r in runs])),
        "sse_rss_kb_per_page": mid("rss_kb_per_page"),
        f"sse_event_p99_ms_{n}_pages": mid("event_p99_ms"),
        f"sse_event_last_ms_{n}_pages": mid("event_last_ms"),
        f"live_cpu_ms_per_s_{quiet}_pages": streamed,
        f"live_poll_cpu_ms_per_s_{quiet}_pages": polled,
        f"live_cpu_vs_polling_{quiet}_pages": rounded(streamed / polled, 4)
        if streamed is not None and polled
        else None,
        "sse_loadavg_before_after": load,  # the machine's 1-minute load (2 cores here)
        "detail": {
            "database": result["database"],
            "limit": plan.pages,
            "runs": [{k: shown(v) for k, v in r.items()} for r in runs],
            "cpus": os.cpu_count(),
        },
    }


def shown(value: Any) -> Any:
    return rounded(value, 2) if isinstance(value, float) else value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sse", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one run, four commits")
    parser.add_argument("--pages", type=int, help=f"streams the worker may hold ({PAGES})")
    parser.add_argument("--quiet", type=int, help="pages on quiet chats (1000)")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    plan = replace(plan, pages=args.pages or plan.pages, quiet_pages=args.quiet or plan.quiet_pages)
    with tempfile.TemporaryDirectory(prefix="jifen-sse-bench-") as workdir:
        figures = measure_sse(Path(workdir), plan)
    print(json.dumps(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
