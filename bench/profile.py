"""``python -m bench.profile``: where the time goes (text report on stdout).

Sections:

- ``path``: pyinstrument (sampling) over an interleaved batch of the 20-chat evening through
  the started Application. ``asyncio.to_thread`` is replaced by a direct call while profiling
  so work normally on a worker thread (reads, SQLite's commits) is sampled too. Reported: the
  share of time by code owner (SQLAlchemy, PTB, sqlite3 C calls, jifen...) and a jifen-only call
  tree.
- ``sql``: per command (one update each), the Core executions (``Connection.execute``: what the
  code asks for) and the SQL statements and commits SQLite runs; with ``--pg``, the Core
  executions and the statements and round trips on PostgreSQL.
- ``scoring``: cProfile of ``settle_hand`` on the realistic mix.
- ``startup``: ``python -X importtime`` of the console start (top packages) and the phases
  timed by ``bench.startup_probe``.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import subprocess
import sys
import tempfile
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pyinstrument import Profiler
from pyinstrument.frame import Frame
from sqlalchemy import event
from sqlalchemy.engine import Engine

from bench import pg
from bench.harness import Driver, Message, bot_driver, migrated_engine, players, quiet_logs
from bench.path import PathResult, measure_path
from bench.process import REPO, child_env
from bench.scoring_mix import mix
from bench.statements import CoreCounter
from bench.workload import Evening, chats_of, seating, tables

PRODUCT_DIRS = ("bot", "service", "storage", "scoring")
OTHER = "stdlib / other"
OWNERS = (
    ("sqlalchemy", "SQLAlchemy (Python)"),
    ("sqlmodel", "SQLModel"),
    ("psycopg", "psycopg (incl. waiting for the server)"),
    ("pydantic", "pydantic"),
    ("telegram", "PTB"),
    ("asyncio", "asyncio"),
)


# ------------------------------------------------------------------ path profile


async def _inline(func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    return func(*args, **kwargs)


def _owner(frame: Frame) -> str:
    path = frame.file_path or ""
    if path == "<built-in>" and frame.function.startswith(("Cursor.", "Connection.")):
        return "sqlite3 C calls (execute; commit = fsync)"
    if path == f"{REPO}/bot/console/offline.py":
        return "Bot API stand-in (for Telegram)"
    if _is_product(frame):
        return "jifen (own code)"
    for marker, owner in OWNERS:
        if f"/{marker}" in path:
            return owner
    return OTHER


def _is_product(frame: Frame) -> bool:
    path = frame.file_path or ""
    return any(path.startswith(f"{REPO}/{d}/") for d in PRODUCT_DIRS)


def _label(frame: Frame) -> str:
    short = (frame.file_path or "").removeprefix(f"{REPO}/")
    return f"{short}:{frame.function}"


def _real_children(frame: Frame) -> Iterator[Frame]:
    return (c for c in frame.children if not c.is_synthetic)


def owner_shares(root: Frame) -> dict[str, float]:
    """Self time by owner of the code, as a share of the total. Standard library and built-in
    calls count for the nearest caller that has an owner (``dict.get`` inside SQLAlchemy is
    SQLAlchemy's time)."""
    totals: dict[str, float] = defaultdict(float)
    stack: list[tuple[Frame, str]] = [(root, OTHER)]
    while stack:
        frame, inherited = stack.pop()
        owner = _owner(frame)
        if owner == OTHER:
            owner = inherited
        totals[owner] += frame.total_self_time
        stack.extend((child, owner) for child in _real_children(frame))
    whole = sum(totals.values()) or 1.0
    return {k: v / whole for k, v in sorted(totals.items(), key=lambda kv: -kv[1])}


def top_self(root: Frame, count: int = 15) -> list[tuple[float, str, str]]:
    """(share, owner, function) with the most self time."""
    totals: dict[tuple[str, str], float] = defaultdict(float)
    stack = [root]
    while stack:
        frame = stack.pop()
        short = (frame.file_path or "").rsplit("site-packages/", 1)[-1].removeprefix(f"{REPO}/")
        totals[(_owner(frame), f"{short}:{frame.function}")] += frame.total_self_time
        stack.extend(_real_children(frame))
    whole = sum(totals.values()) or 1.0
    ranked = sorted(totals.items(), key=lambda kv: -kv[1])[:count]
    return [(v / whole, owner, name) for (owner, name), v in ranked]


def product_tree(root: Frame) -> dict[tuple[str, ...], float]:
    """Inclusive time of jifen functions, keyed by their jifen-only call path."""
    tree: dict[tuple[str, ...], float] = defaultdict(float)

    def walk(frame: Frame, path: tuple[str, ...]) -> None:
        if _is_product(frame):
            label = _label(frame)
            if label not in path:  # recursion counts once
                path = (*path, label)
                tree[path] += frame.time
        for child in _real_children(frame):
            walk(child, path)

    walk(root, ())
    return tree


def inclusive_by_function(tree: dict[tuple[str, ...], float]) -> dict[str, float]:
    """Inclusive time of each jifen function over all its call paths."""
    totals: dict[str, float] = defaultdict(float)
    for path, seconds in tree.items():
        totals[path[-1]] += seconds
    return dict(sorted(totals.items(), key=lambda kv: -kv[1]))


def print_tree(tree: dict[tuple[str, ...], float], total: float, min_share: float) -> None:
    for path in sorted(tree):
        share = tree[path] / total
        if share >= min_share:
            print(f"{'  ' * (len(path) - 1)}{100 * share:5.1f}%  {path[-1]}")


async def _profile_path(url: str, per_table: int) -> tuple[Frame, float, int]:
    engine = migrated_engine(url)
    tabs = tables()
    bot = await bot_driver(engine, url, chats_of(tabs), lean=True)
    try:
        for table in tabs:
            await bot.run(bot.prepare(seating(table)))
        evening = Evening(tabs)
        await bot.run(bot.prepare(evening.batch(2)))
        updates = bot.prepare(evening.batch(per_table))
        original, asyncio.to_thread = asyncio.to_thread, _inline
        profiler = Profiler(interval=0.0005, async_mode="disabled")
        try:
            profiler.start()
            elapsed = await bot.run(updates)
            profiler.stop()
        finally:
            asyncio.to_thread = original
    finally:
        await bot.close()
        engine.dispose()
    root = profiler.last_session.root_frame() if profiler.last_session else None
    assert root is not None
    return root, elapsed.wall, len(updates)


def section_path(workdir: Path, per_table: int, postgres: bool) -> None:
    if postgres:
        with pg.fresh_database() as url:
            root, wall, updates = asyncio.run(_profile_path(url, per_table))
    else:
        url = f"sqlite:///{workdir / 'profile.sqlite3'}"
        root, wall, updates = asyncio.run(_profile_path(url, per_table))
    where = "PostgreSQL" if postgres else "SQLite"
    print(f"## path ({where}): {updates} updates, {1000 * wall / updates:.1f} ms/update profiled\n")
    print("### self time by owner of the code")
    for owner, share in owner_shares(root).items():
        print(f"{100 * share:5.1f}%  {owner}")
    print("\n### functions with the most self time")
    for share, owner, name in top_self(root):
        print(f"{100 * share:5.1f}%  {name}  [{owner}]")
    tree = product_tree(root)
    print("\n### jifen functions by inclusive time over all call paths (≥ 1%)")
    for label, seconds in inclusive_by_function(tree).items():
        if seconds / root.time >= 0.01:
            print(f"{100 * seconds / root.time:5.1f}%  {label}")
    print("\n### jifen call tree (inclusive time, ≥ 1%)")
    print_tree(tree, root.time, 0.01)
    print()


# ------------------------------------------------------------------ SQL per command


class StatementCounter:
    """Counts the SQL statements SQLite runs on an engine's connections (the hot path's plain
    DBAPI statements and savepoints included) and its commits."""

    def __init__(self, engine: Engine) -> None:
        self.statements = 0
        self.commits = 0
        event.listen(engine, "connect", self._trace)
        engine.dispose()  # connections opened from now on are traced

    def _trace(self, dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.set_trace_callback(self._statement)

    def _statement(self, sql: str) -> None:
        if sql.startswith("PRAGMA"):
            return
        self.statements += 1
        self.commits += sql == "COMMIT"

    def take(self) -> tuple[int, int]:
        counts = (self.statements, self.commits)
        self.statements = self.commits = 0
        return counts


class RoundTripCounter:
    """PostgreSQL: the statements sent (BEGIN, COMMIT and the pool's ping included) and the
    round trips (the client sends, then waits for the server's answer), read from libpq's trace
    of every connection of an engine."""

    def __init__(self, engine: Engine, workdir: Path) -> None:
        self._workdir = workdir
        self._traces: list[tuple[Path, list[Any]]] = []  # path, [offset, last direction]
        event.listen(engine, "connect", self._trace)
        engine.dispose()

    def _trace(self, dbapi_connection: Any, _record: Any) -> None:
        from psycopg.pq import Trace

        path = self._workdir / f"pg-trace-{len(self._traces)}.txt"
        sink = path.open("w")  # libpq writes it, line-buffered, as long as the connection lives
        dbapi_connection.pgconn.trace(sink.fileno())
        dbapi_connection.pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)
        self._traces.append((path, [0, "", sink]))

    def take(self) -> tuple[int, int]:
        statements = trips = 0
        for path, state in self._traces:
            with path.open() as trace:
                trace.seek(state[0])
                for line in trace:
                    if line.count("\t") < 2:  # a statement's text goes on over lines
                        continue
                    direction, _size, message = line.split("\t", 3)[:3]
                    statements += direction == "F" and message in ("Query", "Execute")
                    trips += state[1] == "F" and direction == "B"
                    state[1] = direction
                state[0] = trace.tell()
        return statements, trips


async def _count(
    driver: Driver, core: CoreCounter, counter: Any, message: Message
) -> tuple[int, int, int]:
    core.take()
    counter.take()
    await driver.say(message)
    return (core.take(), *counter.take())


async def _sql_counts(url: str, workdir: Path) -> list[tuple[str, int, int, int]]:
    engine = migrated_engine(url)
    counter: StatementCounter | RoundTripCounter = (
        StatementCounter(engine) if url.startswith("sqlite") else RoundTripCounter(engine, workdir)
    )
    core = CoreCounter(engine)
    tabs = tables(3)
    bot = await bot_driver(engine, url, chats_of(tabs))
    rows: list[tuple[str, int, int, int]] = []
    try:
        for table in tabs:
            user = players(table.index)[0]
            for message in seating(table):
                rows.append((message.text, *await _count(bot, core, counter, message)))
            for text in (*table.cycle, "/standings", "/history"):
                said = Message(table.chat, user, text)
                rows.append((text, *await _count(bot, core, counter, said)))
    finally:
        await bot.close()
        engine.dispose()
    return rows


def section_sql(workdir: Path, postgres: bool) -> None:
    if postgres:
        with pg.fresh_database() as url:
            rows = asyncio.run(_sql_counts(url, workdir))
        print("## sql: Core executions, and statements and round trips per update (PostgreSQL;")
        print("BEGIN, COMMIT and the pool's ping included in the statements)\n")
        print(f"{'core':>5} {'statements':>10} {'round trips':>11}  command")
    else:
        rows = asyncio.run(_sql_counts(f"sqlite:///{workdir / 'sql.sqlite3'}", workdir))
        print("## sql: Core executions, and statements per update (SQLite; BEGIN, savepoints and")
        print("COMMIT included in the statements, each row of a multi-row insert counted)\n")
        print(f"{'core':>5} {'statements':>10} {'commits':>11}  command")
    seen: set[str] = set()
    for text, core, statements, other in rows:
        if text not in seen:
            seen.add(text)
            print(f"{core:>5} {statements:>10} {other:>11}  {text}")
    print()


# ------------------------------------------------------------------ write-lock waits


class StatementTimer:
    """Wall time per SQL verb on an engine (``BEGIN IMMEDIATE`` = waiting for the write lock)."""

    def __init__(self, engine: Engine) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)
        self._local = threading.local()
        event.listen(engine, "before_cursor_execute", self._before)
        event.listen(engine, "after_cursor_execute", self._after)

    def _before(self, *_args: Any) -> None:
        self._local.start = time.perf_counter()

    def _after(self, _conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        words = statement.split(maxsplit=2)
        verb = " ".join(words[:2]) if words[:2] == ["BEGIN", "IMMEDIATE"] else words[0]
        self.seconds[verb] += time.perf_counter() - self._local.start
        self.counts[verb] += 1


async def _locks(url: str, serial: bool) -> tuple[PathResult, StatementTimer]:
    engine = migrated_engine(url)
    timer = StatementTimer(engine)
    try:
        result = await measure_path(engine, url, 3, 10, 1, serial=serial)
    finally:
        engine.dispose()
    return result, timer


def section_locks(workdir: Path) -> None:
    print("## locks: chats concurrently (as the poll loop delivers) against one at a time\n")
    print(f"{'mode':<10} {'ms/update':>9} {'cpu ms':>7} {'BEGIN IMMEDIATE ms':>18}")
    for n, serial in enumerate((False, True, False, True)):
        url = f"sqlite:///{workdir / f'locks{n}.sqlite3'}"
        result, timer = asyncio.run(_locks(url, serial))
        waits = timer.seconds["BEGIN IMMEDIATE"] / max(1, timer.counts["BEGIN IMMEDIATE"])
        mode = "serial" if serial else "product"
        print(
            f"{mode:<10} {result.bot_ms_per_update:9.1f} {result.bot_cpu_ms_per_update:7.1f} "
            f"{1000 * waits:18.1f}"
        )
    print()


# ------------------------------------------------------------------ scoring


def section_scoring(hands: int = 5_000, passes: int = 20) -> None:
    from scoring import settle_hand

    sample = mix(hands)
    profile = cProfile.Profile()
    profile.enable()
    for _ in range(passes):
        for hand in sample:
            settle_hand(hand)
    profile.disable()
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("tottime").print_stats(12)
    print(f"## scoring: cProfile of settle_hand, {passes} × {hands} hands (by own time)\n")
    print("\n".join(out.getvalue().splitlines()[4:]))


# ------------------------------------------------------------------ start-up


def importtime_top(db: Path, count: int = 25) -> list[tuple[int, int, str]]:
    """(self µs, cumulative µs, package) of the slowest imports of a console start."""
    command = [sys.executable, "-X", "importtime", "-m", "bot.cli", "console", "--db", str(db)]
    done = subprocess.run(
        command, cwd=REPO, env=child_env(), input=b"", capture_output=True, check=True
    )
    rows = []
    for line in done.stderr.decode().splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative, name = line.removeprefix("import time:").split("|")
        rows.append((int(self_us), int(cumulative), name.rstrip()))
    return sorted(rows, key=lambda r: -r[1])[:count]


def section_startup(workdir: Path) -> None:
    db = workdir / "startup.sqlite3"
    migrated_engine(f"sqlite:///{db}").dispose()
    print("## startup: python -X importtime (top cumulative; indentation = nesting)\n")
    print(f"{'self ms':>8} {'cum ms':>8}  package")
    for self_us, cumulative, name in importtime_top(db):
        print(f"{self_us / 1000:8.1f} {cumulative / 1000:8.1f}  {name}")
    probe = [sys.executable, "-m", "bench.startup_probe", str(db)]
    done = subprocess.run(probe, cwd=REPO, env=child_env(), capture_output=True, check=True)
    phases: dict[str, float] = json.loads(done.stdout)
    print("\n### phases (bench.startup_probe, seconds)")
    for name, seconds in phases.items():
        print(f"{seconds:7.3f}  {name}")
    print(f"{sum(phases.values()):7.3f}  total after interpreter start\n")


SECTIONS = ("path", "sql", "locks", "scoring", "startup")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.profile", description=__doc__)
    parser.add_argument("sections", nargs="*", help=f"any of {', '.join(SECTIONS)} (default all)")
    parser.add_argument("--per-table", type=int, default=10, help="commands per chat (path)")
    parser.add_argument("--pg", action="store_true", help="path and sql on PostgreSQL")
    args = parser.parse_args(argv)
    unknown = set(args.sections) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    quiet_logs()
    with tempfile.TemporaryDirectory(prefix="jifen-profile-") as tmp:
        workdir = Path(tmp)
        for name in args.sections or SECTIONS:
            if name == "path":
                section_path(workdir, args.per_table, args.pg)
            elif name == "sql":
                section_sql(workdir, args.pg)
            elif name == "locks":
                section_locks(workdir)
            elif name == "scoring":
                section_scoring()
            elif name == "startup":
                section_startup(workdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
