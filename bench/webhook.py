"""``webhook_cpu_vs_echo`` and ``reply_p99_ms_100rps``: webhook mode measured from outside.

The path users feel, on real processes: ``jifen run`` as a webhook worker (its tornado server,
the outbox and its sender included) and, as the baseline, a bare PTB echo bot served by
``Application.run_webhook`` (``bench/echo_webhook.py``), each in its own process, each driven
with the same load by this one, which also plays Telegram's Bot API
(``bench/bot_api_stand_in.py``: a raw asyncio server in this event loop).

The load (``schedule``): ``chats`` supergroups with four users each. First each chat is set up
(``/new mahjong``, four ``/join``), then a mahjong evening (``/hu``, ``/gang``, ``/liuju``…),
round robin over the chats, so at 100 updates/s over 100 chats each chat gets one a second.
Every update is POSTed at its absolute time (``rate`` a second, never waiting for an answer:
a pool of keep-alive connections grows when all are busy) with the secret header. A run is:
the set-up, ``warmup`` seconds of scoring, the measured window of ``seconds``, one second
more (so the window ends under load), then the replies are waited for.

Per run:
- CPU per update: ``utime + stime`` of the bot process (``/proc/<pid>/stat``, every thread)
  read as the window's first update is sent and as the one after its last is sent, divided by
  the window's updates. RSS (``VmRSS``) at the window's end, and the peak (``VmHWM``).
- answer latency: the POST written → its HTTP 200 read, for the window's updates.
- reply latency: the update POSTed → the chat's reply (``sendMessage``) read by the stand-in,
  both on this process's ``time.monotonic()``: what a member waits for. Each update gets
  exactly one reply and each chat's replies come in order (checked: the stand-in's count per
  chat, and the echo's texts), so a chat's k-th reply answers its k-th update. PTB's
  run_webhook answers before its handler runs; jifen answers once the update is processed.
- PostgreSQL: the database's committed transactions (``pg_stat_database.xact_commit``) from
  the bot being ready to the run's end, per update (``db_commits_per_update``): less the use
  case's one, the write transactions a reply costs besides (``webhook_writes_per_reply``).

Every update must be answered 200 and every update must get its reply, else ``BenchFailed``.
jifen runs on a fresh SQLite data directory each run (or a fresh PostgreSQL database with
``pg``), with ``JIFEN_RATE_LIMIT=off`` and ``JIFEN_FLOOD=off`` (a test server). The bots
alternate, echo first, ``runs`` times. ``webhook_cpu_vs_echo`` is the median of jifen's CPU
per update over the median of the echo's; ``reply_p99_ms_100rps`` is the median of jifen's
per-run p99. The detail has both bots' figures (and the median of the per-pair ratios).

``python -m bench.webhook [--quick] [--seconds S] [--rate R] [--chats N] [--runs K] [--pg]
[--py-spy FILE]`` prints the JSON (progress on stderr).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from bench.bot_api_stand_in import BOT_ID, StandIn, serve

REPO = Path(__file__).resolve().parent.parent
TOKEN = f"{BOT_ID}:BENCH-webhook"
SECRET = "bench-webhook-Secret_1"
HOOK_PATH = "telegram/bench"
CLOCK_TICK = os.sysconf("SC_CLK_TCK")
START_TIMEOUT = 60.0
REPLY_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0
MAX_CONNECTIONS = 100  # Telegram's own ceiling for a webhook's concurrent connections
NAMES = ("Ann", "Bob", "Cat", "Dan")
#: A mahjong evening (the mix of ``bench/workload.py``): every line ends a hand but ``/gang``.
MAHJONG = (
    "/hu 1 zimo",
    "/hu 2 pao 3",
    "/hu Cat zimo qys pph",
    "/hu 4 pao 1 qidui",
    "/gang 2 an",
    "/hu 2 gangkai",
    "/hu 1 pao 2; 3 pao 2",
    "/liuju",
    "/hu 3 gangpao 4",
    "/hu 2 haidi",
    "/hu Dan pao Bob pph mq",
    "/gang 1 ming 3",
    "/hu 3 qianggang 4",
    "/hu 1 zimo qys",
    "/hu 4 pao 3 qidui1",
    "/hu 2 zimo mq",
)
MAHJONG_MARK = "🀄"  # in jifen's answer to every command of the evening (a hand, a kong)
#: Variables either bot reads: none of the caller's may leak in.
BOT_VARIABLES = (
    "TELEGRAM_BOT_TOKEN",
    "TELEGRAM_API_BASE_URL",
    "DATABASE_URL",
    "JIFEN_DATA_DIR",
    "JIFEN_RATE_LIMIT",
    "JIFEN_FLOOD",
    "WEBHOOK_URL",
    "WEBHOOK_SECRET",
    "WEBHOOK_LISTEN",
    "WEBHOOK_PORT",
    "JIFEN_APP_NAME",
    "JIFEN_APP_URL",
    "JIFEN_APP_LISTEN",
    "JIFEN_APP_PORT",
    "JIFEN_APP_MAX_AGE",
)


Answer = tuple[int, float, float]  # status, request written, answer read (time.monotonic)


class BenchFailed(RuntimeError):
    """An update not answered 200, a reply missing, or a bot that would not start."""


def log(message: str) -> None:
    print(f"[bench.webhook {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-quantile (0..1) by linear interpolation between the closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = q * (len(ordered) - 1)
    low = int(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def median(values: Sequence[float]) -> float:
    return float(statistics.median(values))


def r(value: float, digits: int = 3) -> float:
    return round(value, digits)


# ------------------------------------------------------------------ the load


@dataclass(frozen=True)
class Item:
    """One update to send: its chat (index), its sender (seat), its text, its phase."""

    chat: int
    seat: int
    text: str
    phase: str  # "setup" | "warmup" | "window" | "tail"


def chat_id(chat: int) -> int:
    return -1_008_000_000_000 - chat


def user(chat: int, seat: int) -> dict[str, Any]:
    name = NAMES[seat]
    return {
        "id": 700_000 + 10 * chat + seat,
        "is_bot": False,
        "first_name": name,
        "username": f"{name.lower()}{chat}",
        "language_code": "en",
    }


def schedule(chats: int, rate: float, warmup: float, seconds: float, tail: float) -> list[Item]:
    """Set-up rounds, then the evening round robin over the chats, each phase whole seconds of
    ``rate``."""
    items = [Item(c, 0, "/new mahjong", "setup") for c in range(chats)]
    items += [Item(c, seat, "/join", "setup") for seat in range(4) for c in range(chats)]
    steps = [0] * chats  # each chat's place in its cycle, across the phases
    offset = 0
    for phase, length in (("warmup", warmup), ("window", seconds), ("tail", tail)):
        count = round(length * rate)
        for i in range(count):
            c = (offset + i) % chats
            step, steps[c] = steps[c], steps[c] + 1
            items.append(Item(c, step % 4, MAHJONG[step % len(MAHJONG)], phase))
        offset += count
    return items


def update_body(update_id: int, item: Item) -> bytes:
    command = item.text.split(maxsplit=1)[0]
    message = {
        "message_id": update_id,
        "from": user(item.chat, item.seat),
        "chat": {"id": chat_id(item.chat), "type": "supergroup", "title": f"bench {item.chat}"},
        "date": int(time.time()),
        "text": item.text,
        "entities": [{"type": "bot_command", "offset": 0, "length": len(command)}],
    }
    return json.dumps({"update_id": update_id, "message": message}).encode()


# ------------------------------------------------------------------ the webhook's client


class _ClientConnection(asyncio.Protocol):
    """One keep-alive connection to the webhook: one request at a time (no pipelining)."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.waiter: asyncio.Future[tuple[int, float]] | None = None
        self.open = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport, self.open = transport, True

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(ConnectionError(f"webhook connection lost: {exc}"))

    def send(self, request: bytes) -> asyncio.Future[tuple[int, float]]:
        assert self.transport is not None and self.waiter is None
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(request)
        return self.waiter

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return
        head = bytes(self.buffer[:end]).decode("latin-1").split("\r\n")
        length, close = 0, False
        for line in head[1:]:
            name, _, value = line.partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "connection":
                close = value.strip().lower() == "close"
            elif name == "transfer-encoding":
                raise BenchFailed(f"a chunked webhook answer: {head}")
        if len(self.buffer) < end + 4 + length:
            return
        at = time.monotonic()
        del self.buffer[: end + 4 + length]
        status = int(head[0].split(" ", 2)[1])
        waiter, self.waiter = self.waiter, None
        if close and self.transport is not None:
            self.open = False
            self.transport.close()
        if waiter is not None and not waiter.done():
            waiter.set_result((status, at))


class WebhookClient:
    """POSTs to the webhook over a pool of keep-alive connections that grows while every
    connection waits for an answer (up to ``MAX_CONNECTIONS``)."""

    def __init__(self, port: int, path: str, secret: str) -> None:
        self.port = port
        self.head = (
            f"POST /{path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
            f"Content-Type: application/json\r\nX-Telegram-Bot-Api-Secret-Token: {secret}\r\n"
        ).encode()
        self.idle: list[_ClientConnection] = []
        self.opened = 0
        self.slots = asyncio.Semaphore(MAX_CONNECTIONS)

    async def _connection(self) -> _ClientConnection:
        while self.idle:
            conn = self.idle.pop()
            if conn.open:
                return conn
        loop = asyncio.get_running_loop()
        _, conn = await loop.create_connection(_ClientConnection, "127.0.0.1", self.port)
        conn.transport.get_extra_info("socket").setsockopt(  # type: ignore[union-attr]
            socket.IPPROTO_TCP, socket.TCP_NODELAY, 1
        )
        self.opened += 1
        return conn

    async def post(self, body: bytes) -> tuple[int, float, float]:
        """(status, when the request was written, when its answer was read)."""
        async with self.slots:
            conn = await self._connection()
            request = self.head + b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
            sent = time.monotonic()
            status, answered = await conn.send(request + body)
            if conn.open:
                self.idle.append(conn)
            return status, sent, answered

    def close(self) -> None:
        for conn in self.idle:
            if conn.transport is not None:
                conn.transport.close()
        self.idle.clear()


# ------------------------------------------------------------------ the processes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bot_env(**settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in BOT_VARIABLES}
    env |= dict.fromkeys(BOT_VARIABLES, "")
    paths = [str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]  # as the tests do
    env |= {"PYTHONPATH": os.pathsep.join(paths), "PYTHONUNBUFFERED": "1"}
    return env | settings


def cpu_ticks(pid: int) -> tuple[int, int]:
    """(utime, stime) of every thread of ``pid``, in clock ticks."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)


def switches(pid: int) -> int:
    """Context switches so far of the threads of ``pid`` (voluntary and not)."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError):  # a thread that just ended
            for line in (task / "status").read_text().splitlines():
                if "ctxt_switches:" in line:
                    total += int(line.split()[1])
    return total


def backends(database: str) -> dict[int, int]:
    """CPU ticks (user + system) of the local PostgreSQL server's backends serving
    ``database``, by pid (their command lines name the database)."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            words = (entry / "cmdline").read_bytes().replace(b"\0", b" ").split()
            if len(words) >= 4 and words[0] == b"postgres:" and words[3] == database.encode():
                found[int(entry.name)] = sum(cpu_ticks(int(entry.name)))
    return found


def memory_mb(pid: int) -> tuple[float, float]:
    """(VmRSS, VmHWM) in MB."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, rest = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            values[name] = int(rest.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


@dataclass
class Bot:
    """A measured bot process."""

    name: str  # "echo" | "jifen" | "jifen_pg"
    process: subprocess.Popen[bytes]
    port: int
    log_path: Path
    database: str | None = None  # its PostgreSQL database's name (its server's CPU is read too)

    def tail(self) -> str:
        text = self.log_path.read_text(encoding="utf-8", errors="replace")
        return text[-3000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                log(f"{self.name} did not stop in {STOP_TIMEOUT} s: killed")
                self.process.kill()
                self.process.wait()


def start_bot(name: str, rundir: Path, api_port: int, database_url: str | None, **more: str) -> Bot:
    """The bot's process, its webhook on a free port, its output in ``rundir/bot.log``
    (``more``: jifen's other settings, e.g. ``JIFEN_APP_NAME``)."""
    rundir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    base_url = f"http://127.0.0.1:{api_port}/bot"
    if name == "echo":
        command = [sys.executable, "-m", "bench.echo_webhook", "--base-url", base_url]
        command += ["--port", str(port), "--path", HOOK_PATH, "--secret", SECRET]
        command += ["--token", TOKEN]
        env = bot_env()
    else:
        command = [sys.executable, "-m", "bot.cli", "run"]
        env = bot_env(
            TELEGRAM_BOT_TOKEN=TOKEN,
            TELEGRAM_API_BASE_URL=base_url,
            WEBHOOK_URL=f"http://127.0.0.1:{port}/{HOOK_PATH}",
            WEBHOOK_LISTEN="127.0.0.1",
            WEBHOOK_PORT=str(port),
            WEBHOOK_SECRET=SECRET,
            JIFEN_DATA_DIR=str(rundir / "data"),
            JIFEN_RATE_LIMIT="off",
            JIFEN_FLOOD="off",
            **more,
        )
        if database_url:
            env["DATABASE_URL"] = database_url
    log_path = rundir / "bot.log"
    with log_path.open("wb") as out:  # cwd: the run's directory (no developer's .env read)
        process = subprocess.Popen(
            command, cwd=rundir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out
        )
    database = database_url.rsplit("/", 1)[1] if database_url else None
    return Bot(name, process, port, log_path, database)


async def wait_ready(bot: Bot, api: StandIn) -> None:
    """Until the bot registered its webhook and its port takes connections."""
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        if bot.process.poll() is not None:
            raise BenchFailed(f"{bot.name} exited ({bot.process.returncode}):\n{bot.tail()}")
        if time.monotonic() > deadline:
            raise BenchFailed(f"{bot.name} not ready in {START_TIMEOUT} s:\n{bot.tail()}")
        if api.calls.webhooks_set:
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", bot.port)
            except OSError:
                pass
            else:
                writer.close()
                return
        await asyncio.sleep(0.05)


# ------------------------------------------------------------------ one run


@dataclass(frozen=True)
class RunFigures:
    """One bot process under one run of the load."""

    bot: str
    cpu_ms_per_update: float
    user_ms_per_update: float  # of which in user space
    system_ms_per_update: float  # and in the kernel (sockets, fsync…)
    switches_per_update: float  # the threads' context switches (the thread pool's hand-offs)
    db_server_ms_per_update: float | None  # PostgreSQL: its backends' CPU (not in the above)
    window_updates: int
    window_s: float
    answer_ms_p50: float
    answer_ms_p99: float
    reply_ms_p50: float
    reply_ms_p99: float
    reply_ms_max: float
    rss_mb: float
    peak_rss_mb: float
    updates_sent: int
    max_send_lag_ms: float  # how late the load generator sent an update, at worst
    connections: int  # the client's connections to the webhook
    api_calls: dict[str, int]  # the Bot API methods the bot called in the run, and how often
    db_commits_per_update: float | None = None  # PostgreSQL: transactions committed, per update


@dataclass
class Load:
    """The shape of a run."""

    chats: int
    rate: float
    warmup: float
    seconds: float
    tail: float = 1.0


async def drive(bot: Bot, api: StandIn, load: Load, profile: Profile | None = None) -> RunFigures:
    """Send the run's updates to ``bot`` and measure it; check every answer and reply."""
    items = schedule(load.chats, load.rate, load.warmup, load.seconds, load.tail)
    first_window = next(i for i, it in enumerate(items) if it.phase == "window")
    first_tail = next(i for i, it in enumerate(items) if it.phase == "tail")
    client = WebhookClient(bot.port, HOOK_PATH, SECRET)
    answers: list[tuple[int, float, float] | BaseException | None] = [None] * len(items)
    pid = bot.process.pid
    ticks: list[tuple[int, int]] = []
    switched: list[int] = []
    server: list[dict[int, int]] = []
    memory = (0.0, 0.0)
    spy: subprocess.Popen[bytes] | None = None

    async def one(index: int) -> None:
        try:
            answers[index] = await client.post(update_body(index + 1, items[index]))
        except Exception as err:
            answers[index] = err

    tasks = []
    lag = 0.0
    start = time.monotonic() + 0.05
    for index in range(len(items)):
        at = start + index / load.rate
        delay = at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        lag = max(lag, time.monotonic() - at)
        if index == first_window:
            ticks.append(cpu_ticks(pid))
            switched.append(switches(pid))
            if bot.database:
                server.append(backends(bot.database))
            if profile is not None:
                spy = profile.start(pid, load.seconds)
        elif index == first_tail:
            ticks.append(cpu_ticks(pid))
            switched.append(switches(pid))
            if bot.database:
                server.append(backends(bot.database))
            memory = memory_mb(pid)
        tasks.append(asyncio.create_task(one(index)))
    await asyncio.gather(*tasks)
    client.close()
    if spy is not None:
        spy.wait(timeout=load.seconds + 30)
    await wait_replies(api, len(items), bot)
    if api.calls.errors:
        raise BenchFailed(f"the stand-in failed {bot.name}'s calls: {api.calls.errors[:5]}")
    window = range(first_window, first_tail)
    answered = check_answers(bot, items, answers)
    replies = match_replies(bot, api, items, answered)
    window_s = len(window) / load.rate
    answer_ms = [(answered[i][2] - answered[i][1]) * 1000 for i in window]
    reply_ms = [(replies[i][0] - answered[i][1]) * 1000 for i in window]
    write_timeline(bot.log_path.parent / "timeline.jsonl", items, answered, replies, start)
    per_update = 1000 / CLOCK_TICK / len(window)
    user = (ticks[1][0] - ticks[0][0]) * per_update
    system = (ticks[1][1] - ticks[0][1]) * per_update
    db_server = None
    if server:  # a backend that started in the window counts whole
        db_server = sum(t - server[0].get(p, 0) for p, t in server[1].items()) * per_update
    return RunFigures(
        bot=bot.name,
        cpu_ms_per_update=user + system,
        user_ms_per_update=user,
        system_ms_per_update=system,
        switches_per_update=(switched[1] - switched[0]) / len(window),
        db_server_ms_per_update=db_server,
        window_updates=len(window),
        window_s=window_s,
        answer_ms_p50=percentile(answer_ms, 0.5),
        answer_ms_p99=percentile(answer_ms, 0.99),
        reply_ms_p50=percentile(reply_ms, 0.5),
        reply_ms_p99=percentile(reply_ms, 0.99),
        reply_ms_max=max(reply_ms),
        rss_mb=memory[0],
        peak_rss_mb=memory[1],
        updates_sent=len(items),
        max_send_lag_ms=lag * 1000,
        connections=client.opened,
        api_calls=dict(sorted(api.calls.by_method.items())),
    )


async def wait_replies(api: StandIn, expected: int, bot: Bot) -> None:
    deadline = time.monotonic() + REPLY_TIMEOUT
    while len(api.calls.sent) < expected:
        if time.monotonic() > deadline or bot.process.poll() is not None:
            raise BenchFailed(
                f"{bot.name}: {len(api.calls.sent)} replies of {expected} after "
                f"{REPLY_TIMEOUT} s:\n{bot.tail()}"
            )
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.3)  # a reply too many would show now


def check_answers(
    bot: Bot,
    items: Sequence[Item],
    answers: Sequence[tuple[int, float, float] | BaseException | None],
) -> list[tuple[int, float, float]]:
    """Every update answered 200."""
    good: list[tuple[int, float, float]] = []
    for index, answer in enumerate(answers):
        if not isinstance(answer, tuple) or answer[0] != 200:
            raise BenchFailed(
                f"{bot.name}: update {index + 1} ({items[index].text!r}) answered {answer!r}"
                f"\n{bot.tail()}"
            )
        good.append(answer)
    return good


def match_replies(
    bot: Bot, api: StandIn, items: Sequence[Item], answered: Sequence[Answer]
) -> list[tuple[float, str]]:
    """When each update's reply arrived: a chat's k-th reply answers its k-th update (one reply
    each, checked; the echo's texts are checked too)."""
    by_chat: dict[int, list[int]] = {}
    for index, item in enumerate(items):
        by_chat.setdefault(chat_id(item.chat), []).append(index)
    sent: dict[int, list[tuple[float, str]]] = {}
    for reply in api.calls.sent:
        sent.setdefault(reply.chat_id, []).append((reply.at, reply.text))
    if set(sent) - set(by_chat):
        raise BenchFailed(
            f"{bot.name}: replies to unknown chats {sorted(set(sent) - set(by_chat))}"
        )
    arrived = [(0.0, "")] * len(items)
    for chat, indexes in by_chat.items():
        replies = sent.get(chat, [])
        if len(replies) != len(indexes):
            texts = [t[:60] for _, t in replies[:8]]
            raise BenchFailed(
                f"{bot.name}: chat {chat} got {len(replies)} replies to {len(indexes)} updates; "
                f"first {texts}\n{bot.tail()}"
            )
        for index, (at, text) in zip(indexes, replies, strict=True):
            if bot.name == "echo" and text != items[index].text:
                raise BenchFailed(f"echo: {items[index].text!r} echoed as {text!r}")
            if not text:
                raise BenchFailed(f"{bot.name}: an empty reply to {items[index].text!r}")
            if bot.name != "echo" and items[index].phase != "setup" and MAHJONG_MARK not in text:
                raise BenchFailed(f"{bot.name}: {items[index].text!r} answered {text[:300]!r}")
            arrived[index] = at, text
    return arrived


#: py-spy's options besides the process, the duration and the output (``--py-spy-args``).
PY_SPY_ARGS = ("--rate", "200")


@dataclass(frozen=True)
class Profile:
    """A profiler attached to one bot's first measured window (that run's figures include its
    cost): ``command``, where ``{pid}`` and ``{seconds}`` are filled in; it must end by itself
    within the window."""

    command: tuple[str, ...]
    bot: str = "jifen"

    @classmethod
    def py_spy(cls, out: Path, bot: str = "jifen", extra: Sequence[str] = PY_SPY_ARGS) -> Profile:
        """py-spy's collapsed stacks (``--format raw``, for ``bench.spy_summary``) in ``out``."""
        spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        command = (spy, "record", "-p", "{pid}", "-d", "{seconds}", "--format", "raw")
        return cls((*command, "-o", str(out), *extra), bot)

    def start(self, pid: int, seconds: float) -> subprocess.Popen[bytes]:
        fill = {"pid": str(pid), "seconds": str(max(1, int(seconds)))}
        command = [part.format(**fill) for part in self.command]
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def write_timeline(
    path: Path,
    items: Sequence[Item],
    answered: Sequence[Answer],
    replies: Sequence[tuple[float, str]],
    start: float,
) -> None:
    """One line per update, times in ms from the run's start (written, answered, replied), and
    the reply's text."""
    with path.open("w") as out:
        for item, (_, sent, answer), (reply, text) in zip(items, answered, replies, strict=True):
            times = [round((t - start) * 1000, 2) for t in (sent, answer, reply)]
            out.write(json.dumps([item.phase, item.chat, item.text, *times, text]) + "\n")


async def measure_one(
    name: str,
    api: StandIn,
    api_port: int,
    rundir: Path,
    load: Load,
    database_url: str | None = None,
    profile: Profile | None = None,
) -> RunFigures:
    api.calls.clear()
    bot = start_bot(name, rundir, api_port, database_url)
    try:
        await wait_ready(bot, api)
        await asyncio.sleep(0.5)  # let start-up's leftovers settle
        before = commits(database_url) if database_url else None
        figures = await drive(bot, api, load, profile)
        if database_url and before is not None:
            await asyncio.sleep(1.5)  # each backend reports its counts within a second idle
            done = commits(database_url) - before
            figures = replace(figures, db_commits_per_update=done / figures.updates_sent)
        return figures
    finally:
        bot.stop()


def commits(database_url: str) -> int:
    """The transactions committed in a PostgreSQL database so far (its statistics)."""
    from sqlalchemy import create_engine, text

    name = database_url.rsplit("/", 1)[1]
    engine = create_engine(database_url.rsplit("/", 1)[0] + "/postgres")
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT xact_commit FROM pg_stat_database WHERE datname = :d"), {"d": name}
            ).scalar_one()
        return int(found)
    finally:
        engine.dispose()


# ------------------------------------------------------------------ runs and result


@dataclass
class WebhookResult:
    """The runs of each bot, in order."""

    rate: float
    chats: int
    runs: dict[str, list[RunFigures]] = field(default_factory=dict)
    seconds_taken: float = 0.0
    load_average: list[float] = field(default_factory=list)  # 1-minute, before and after

    def _median(self, bot: str, key: str) -> float:
        return median([getattr(run, key) for run in self.runs[bot]])

    def _shown(self, bot: str, key: str) -> float | int:
        value = self._median(bot, key)
        return int(value) if isinstance(getattr(self.runs[bot][0], key), int) else r(value)

    def _cpu(self, bot: str) -> float:
        return self._median(bot, "cpu_ms_per_update")

    def ratio(self) -> float:
        return self._cpu("jifen") / self._cpu("echo")

    def figures(self) -> dict[str, float | None]:
        """`webhook_cpu_vs_echo` and the reply's p99 at this rate (`reply_p99_ms_<rate>rps`),
        and with jifen on PostgreSQL the same and the write transactions a reply costs beyond
        its use case's."""
        rate = f"{round(self.rate)}rps"
        out: dict[str, float | None] = {
            "webhook_cpu_vs_echo": r(self.ratio(), 2),
            f"reply_p99_ms_{rate}": r(self._median("jifen", "reply_ms_p99"), 1),
        }
        if "jifen_pg" in self.runs:
            out["pg_webhook_cpu_vs_echo"] = r(self._cpu("jifen_pg") / self._cpu("echo"), 2)
            out[f"pg_reply_p99_ms_{rate}"] = r(self._median("jifen_pg", "reply_ms_p99"), 1)
            commits = self._median("jifen_pg", "db_commits_per_update")
            out["webhook_writes_per_reply"] = r(commits - 1, 2)
        return out

    def detail(self) -> dict[str, Any]:
        keys = [k for k in RunFigures.__dataclass_fields__ if k not in ("bot", "api_calls")]
        out: dict[str, Any] = {
            "rate_per_s": self.rate,
            "chats": self.chats,
            "runs": len(self.runs["jifen"]),
            "seconds_taken": r(self.seconds_taken, 1),
            "load_average": self.load_average,
            "ratio_is": "median(jifen cpu_ms_per_update) / median(echo cpu_ms_per_update)",
            "ratio_median_of_pairs": r(
                median(
                    [
                        j.cpu_ms_per_update / e.cpu_ms_per_update
                        for j, e in zip(self.runs["jifen"], self.runs["echo"], strict=True)
                    ]
                ),
                2,
            ),
        }
        for bot, runs in self.runs.items():
            out[bot] = {k: self._shown(bot, k) for k in keys if getattr(runs[0], k) is not None}
            out[bot]["per_run_cpu_ms"] = [r(run.cpu_ms_per_update) for run in runs]
            out[bot]["per_run_reply_p99_ms"] = [r(run.reply_ms_p99, 1) for run in runs]
            out[bot]["api_calls_first_run"] = runs[0].api_calls
        if "jifen_pg" in self.runs:
            pg_cpu = self._cpu("jifen_pg")
            server = self._median("jifen_pg", "db_server_ms_per_update")
            out["pg_cpu_vs_echo"] = r(pg_cpu / self._cpu("echo"), 2)
            out["pg_with_server_cpu_vs_echo"] = r((pg_cpu + server) / self._cpu("echo"), 2)
        return out


async def _measure(
    workdir: Path,
    load: Load,
    runs: int,
    pg_admin: str | None,
    profile: Profile | None,
) -> WebhookResult:
    api = StandIn()
    server = await serve(api)
    api_port = int(server.sockets[0].getsockname()[1])
    result = WebhookResult(load.rate, load.chats)
    began = time.monotonic()
    result.load_average.append(r(os.getloadavg()[0], 2))
    try:
        for run in range(runs):
            bots = ["echo", "jifen"] + (["jifen_pg"] if pg_admin is not None else [])
            for name in bots:
                rundir = workdir / f"{name}-{run}"
                spy = profile if profile is not None and profile.bot == name and run == 0 else None
                if name == "jifen_pg":
                    with _pg_database(pg_admin) as url:
                        figures = await measure_one(name, api, api_port, rundir, load, url, spy)
                else:
                    figures = await measure_one(name, api, api_port, rundir, load, None, spy)
                result.runs.setdefault(name, []).append(figures)
                log(
                    f"run {run + 1}/{runs} {name}: {figures.cpu_ms_per_update:.3f} ms CPU/update,"
                    f" reply p50 {figures.reply_ms_p50:.1f} p99 {figures.reply_ms_p99:.1f} ms,"
                    f" answer p50 {figures.answer_ms_p50:.1f} p99 {figures.answer_ms_p99:.1f} ms,"
                    f" RSS {figures.rss_mb:.1f} MB" + (" (profiler attached)" if spy else "")
                )
    finally:
        server.close()
        await server.wait_closed()
    result.seconds_taken = time.monotonic() - began
    result.load_average.append(r(os.getloadavg()[0], 2))
    return result


@contextlib.contextmanager
def _pg_database(admin: str | None) -> Iterator[str]:
    from bench import pg

    if admin:
        pg.ADMIN_URL = admin
    with pg.fresh_database() as url:
        yield url


def measure_webhook(
    workdir: Path,
    *,
    seconds: float,
    rate: float,
    chats: int,
    runs: int,
    warmup: float = 3.0,
    pg_admin: str | None = None,
    profile: Profile | None = None,
) -> WebhookResult:
    """Both bots under the same load, alternating, ``runs`` times each (see the module's text).
    ``pg_admin``: also jifen on a fresh PostgreSQL database each run (``jifen_pg``), made
    through that server URL. ``profile``: py-spy's collapsed stacks of one bot's first window
    (that run's figures then include py-spy's pauses)."""
    load = Load(chats=chats, rate=rate, warmup=warmup, seconds=seconds)
    return asyncio.run(_measure(workdir, load, runs, pg_admin, profile))


@dataclass(frozen=True)
class Plan:
    """How long: the measured window, the scoring before it, the runs of each bot."""

    seconds: float
    warmup: float
    runs: int


FULL = Plan(seconds=12.0, warmup=3.0, runs=3)  # ~2.5 minutes
QUICK = Plan(seconds=8.0, warmup=3.0, runs=1)  # ~40 seconds


def profile(args: argparse.Namespace) -> Profile | None:
    if args.attach:
        return Profile(tuple(shlex.split(args.attach)), args.profile_bot)
    if args.py_spy:
        return Profile.py_spy(args.py_spy, args.profile_bot, args.py_spy_args.split())
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.webhook", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="one run of 8 s a bot")
    parser.add_argument("--seconds", type=float, help="the measured window (default 12, quick 8)")
    parser.add_argument("--warmup", type=float, help="scoring before the window (default 3)")
    parser.add_argument("--rate", type=float, default=100.0, help="updates a second (100)")
    parser.add_argument("--chats", type=int, default=100, help="group chats (100)")
    parser.add_argument("--runs", type=int, help="runs of each bot (default 3, quick 1)")
    parser.add_argument(
        "--pg",
        nargs="?",
        const="",
        metavar="ADMIN_URL",
        help="also jifen on PostgreSQL (a fresh database each run; default server: bench/pg.py)",
    )
    parser.add_argument(
        "--py-spy", type=Path, metavar="FILE", help="py-spy's collapsed stacks of a first window"
    )
    parser.add_argument(
        "--py-spy-args",
        default=" ".join(PY_SPY_ARGS),
        help=f"py-spy record's other options (default {' '.join(PY_SPY_ARGS)!r}; e.g. --gil)",
    )
    parser.add_argument(
        "--attach",
        metavar="COMMAND",
        help="another profiler, {pid} and {seconds} filled in, e.g. "
        "'perf record -g -p {pid} -o perf.data -- sleep {seconds}'",
    )
    parser.add_argument(
        "--profile-bot", default="jifen", choices=("jifen", "echo", "jifen_pg"), help="which"
    )
    parser.add_argument("--keep", action="store_true", help="keep the runs' directories")
    args = parser.parse_args(argv)
    plan = QUICK if args.quick else FULL
    workdir = Path(tempfile.mkdtemp(prefix="jifen-webhook-bench-"))
    try:
        result = measure_webhook(
            workdir,
            seconds=args.seconds or plan.seconds,
            rate=args.rate,
            chats=args.chats,
            runs=args.runs or plan.runs,
            warmup=args.warmup if args.warmup is not None else plan.warmup,
            pg_admin=None if args.pg is None else args.pg,
            profile=profile(args),
        )
    finally:
        if args.keep:
            log(f"runs kept in {workdir}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps({**result.figures(), "quick": args.quick, "detail": result.detail()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
