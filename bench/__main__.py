"""``python -m bench [--quick]``: run every measurement once, print one JSON object on stdout.

Progress goes to stderr. Each figure is the median of several repetitions; see bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from bench import fsync, pg
from bench.commands import KEYS, CommandsResult, measure_commands
from bench.harness import migrated_engine, quiet_logs
from bench.live import measure_live
from bench.path import LoneResult, PathResult, measure_lone, measure_path
from bench.process import measure_process
from bench.scoring_mix import measure_scoring
from bench.standings import measure_standings
from bench.tiles import measure_tiles
from bench.timing import rounded
from bench.webhook import FULL as WEBHOOK_FULL
from bench.webhook import QUICK as WEBHOOK_QUICK
from bench.webhook import measure_webhook

PRODUCT_DIRS = ("bot", "service", "storage", "scoring")

#: key → (comparison, target) on this 2-core machine (issue 7).
TARGETS: dict[str, tuple[str, float]] = {
    "hands_per_s": (">=", 500),
    "overhead_vs_echo": ("<=", 3),
    "standings_ratio_100k": ("<=", 1.5),
    "scoring_per_s": (">=", 100_000),
    "rss_mb": ("<=", 80),
    "start_s": ("<=", 2),
    # issue 17: every command flat in the size of history; /stats within 2; /chart and /export
    # by their own figures (a file of every row grows with the season: its pace is the target)
    **{
        f"{key}_ratio_100k": ("<=", 1.5)
        for key in KEYS
        if key not in ("standings", "stats", "chart", "export")
    },
    "stats_ratio_100k": ("<=", 2),
    "chart_ms_100k": ("<=", 500),
    "export_rows_per_s": (">=", 100_000),
    "export_rss_growth_mb_100k": ("<=", 30),
    "peak_rss_growth_mb_100k": ("<=", 50),
    "max_loop_block_ms": ("<=", 50),
    "pg_overhead_vs_echo": ("<=", 5),
    # issue 25: the path users feel, one update at a time (SQLite, PostgreSQL)
    "lone_overhead_vs_echo": ("<=", 3),
    "pg_lone_overhead_vs_echo": ("<=", 4),
    # issue 25: a `jifen run` webhook worker measured from outside (bench.webhook)
    "webhook_cpu_vs_echo": ("<=", 2),
    "reply_p99_ms_100rps": ("<=", 100),
    # issue 29: reading a hand from its tiles under 1 ms
    "tiles_read_per_s": (">=", 1_000),
    # issue 27: 100 open Mini App pages following their tables (bench.live)
    "live_cpu_ms_per_s_100_pages": ("<=", 250),
    "live_polls_refused": ("<=", 0),
}


@dataclass(frozen=True)
class Plan:
    """How much to measure: the full run, or ``--quick`` (under a minute)."""

    quick: bool
    path_reps: int
    per_table: int
    warmup_per_table: int
    big_hands: int
    standings_reps: int
    scoring_hands: int
    scoring_reps: int
    process_runs: int
    command_reps: int
    lone_reps: int
    lone_per_table: int


FULL = Plan(False, 7, 20, 4, 100_000, 30, 10_000, 15, 5, 5, 7, 5)
QUICK = Plan(True, 3, 4, 1, 10_000, 10, 5_000, 5, 2, 3, 3, 2)


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def timed(label: str, func: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    result = func()
    log(f"{label}: {time.perf_counter() - start:.1f} s")
    return result


def sqlite_settings(engine: Engine) -> dict[str, Any]:
    """The product engine's journal mode and synchronous level (durability as configured)."""
    with engine.connect() as conn:
        mode = conn.exec_driver_sql("PRAGMA journal_mode").scalar()
        sync = conn.exec_driver_sql("PRAGMA synchronous").scalar()
    levels = {0: "OFF", 1: "NORMAL", 2: "FULL", 3: "EXTRA"}
    return {"journal_mode": mode, "synchronous": levels.get(int(sync or 0), sync)}


def sqlite_path(workdir: Path, plan: Plan) -> tuple[PathResult, LoneResult, dict[str, Any]]:
    url = f"sqlite:///{workdir / 'path.sqlite3'}"
    engine = migrated_engine(url)
    try:
        settings = sqlite_settings(engine)
        result = asyncio.run(
            measure_path(engine, url, plan.path_reps, plan.per_table, plan.warmup_per_table)
        )
    finally:
        engine.dispose()
    naive = f"sqlite:///{workdir / 'lone-naive.sqlite3'}"
    return result, _lone(f"sqlite:///{workdir / 'lone.sqlite3'}", plan, naive), settings


def _lone(url: str, plan: Plan, naive_url: str) -> LoneResult:
    """An update alone, and the echo bot's and the naive peer's (its tables on `naive_url`)."""
    engine = migrated_engine(url)
    try:
        lone = measure_lone(engine, url, plan.lone_reps, plan.lone_per_table, naive_url)
        return asyncio.run(lone)
    finally:
        engine.dispose()


def postgres_path(plan: Plan) -> tuple[PathResult, LoneResult] | None:
    if not pg.available():
        log("PostgreSQL does not answer: pg_hands_per_s is null")
        return None
    with pg.fresh_database() as url:
        engine = migrated_engine(url)
        try:
            batched = asyncio.run(
                measure_path(engine, url, plan.path_reps, plan.per_table, plan.warmup_per_table)
            )
        finally:
            engine.dispose()
    with pg.fresh_database() as url:
        return batched, _lone(url, plan, url)  # the peer's tables beside jifen's


def revision() -> str:
    """The measured code: ``git`` HEAD, ``+dirty`` when product files differ from it."""
    repo = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=repo, capture_output=True, check=True
        ).stdout.decode()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--", *PRODUCT_DIRS],
            cwd=repo,
            capture_output=True,
            check=True,
        ).stdout.decode()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head.strip() + ("+dirty" if status.strip() else "")


def missed(figures: dict[str, Any]) -> list[str]:
    out = []
    for key, (op, target) in TARGETS.items():
        value = figures.get(key)
        if value is None:
            continue
        if (op == ">=" and value < target) or (op == "<=" and value > target):
            out.append(key)
    return out


def command_figures(commands: CommandsResult) -> dict[str, Any]:
    """The issue 17 keys (``--quick``: at ``detail.commands.big_hands``, not 100,000)."""
    figures: dict[str, Any] = {
        f"{key}_ratio_100k": rounded(commands.ratio(key)) for key in KEYS if key != "standings"
    }
    figures["chart_ms_100k"] = rounded(commands.big_ms["chart"], 1)
    figures["export_rows_per_s"] = rounded(commands.export_rows_per_s, 0)
    figures["export_rss_growth_mb_100k"] = rounded(commands.peak_growth_mb["export"], 1)
    figures["peak_rss_growth_mb_100k"] = rounded(max(commands.peak_growth_mb.values()), 1)
    figures["max_loop_block_ms"] = rounded(max(commands.loop_block_ms.values()), 1)
    return figures


def run(plan: Plan, workdir: Path) -> dict[str, Any]:
    load_before, measured = os.getloadavg(), revision()  # the code this process imports now
    fsync_ms = timed("fsync probe", lambda: fsync.commit_ms(workdir))
    path, lone, settings = timed("sqlite path", lambda: sqlite_path(workdir, plan))
    standings = timed(
        "standings",
        lambda: asyncio.run(
            measure_standings(workdir, big_hands=plan.big_hands, reps=plan.standings_reps)
        ),
    )
    commands = timed(
        "commands",
        lambda: asyncio.run(
            measure_commands(workdir, big_hands=plan.big_hands, reps=plan.command_reps)
        ),
    )
    scoring = timed(
        "scoring", lambda: measure_scoring(hands=plan.scoring_hands, reps=plan.scoring_reps)
    )
    tiles = timed("tiles", lambda: measure_tiles(reps=plan.scoring_reps))
    live = timed("live pages", lambda: measure_live(workdir / "live", 3.0 if plan.quick else 10.0))
    process = timed(
        "process",
        lambda: measure_process(workdir, runs=plan.process_runs, fresh=not plan.quick),
    )
    postgres, pg_lone = timed("postgres path", lambda: postgres_path(plan)) or (None, None)
    hooked = WEBHOOK_QUICK if plan.quick else WEBHOOK_FULL
    webhook = timed(
        "webhook worker",
        lambda: measure_webhook(
            workdir / "webhook",
            seconds=hooked.seconds,
            rate=100,
            chats=100,
            runs=hooked.runs,
            warmup=hooked.warmup,
        ),
    )
    figures: dict[str, Any] = {
        "hands_per_s": rounded(path.hands_per_s, 1),
        "overhead_vs_echo": rounded(path.overhead_vs_echo),
        "standings_ratio_100k": rounded(standings.ratio),
        "scoring_per_s": rounded(scoring, 0),
        "tiles_read_per_s": rounded(tiles, 0),
        "rss_mb": rounded(process.rss_mb, 1),
        "start_s": rounded(process.start_s, 3),
        "pg_hands_per_s": rounded(postgres.hands_per_s, 1) if postgres else None,
        "pg_overhead_vs_echo": rounded(postgres.overhead_vs_echo) if postgres else None,
        "lone_overhead_vs_echo": rounded(lone.overhead_vs_echo),
        "pg_lone_overhead_vs_echo": rounded(pg_lone.overhead_vs_echo) if pg_lone else None,
        **command_figures(commands),
        **webhook.figures(),
        **live,
        "quick": plan.quick,
    }
    figures["targets_missed"] = missed(figures)
    figures["detail"] = {
        "sqlite_path": path.detail(),
        "sqlite_settings": settings,
        "sqlite_commit_floor_ms": round(fsync_ms, 3),
        "standings": standings.detail(),
        "process": process.detail(),
        "postgres_path": postgres.detail() if postgres else None,
        "sqlite_lone": lone.detail(),
        "postgres_lone": pg_lone.detail() if pg_lone else None,
        "webhook": webhook.detail(),
        "commands": commands.detail(),
        "loadavg_before_after": [round(load_before[0], 2), round(os.getloadavg()[0], 2)],
        "revision": measured,
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
    }
    return figures


def run_paths(plan: Plan, workdir: Path) -> dict[str, Any]:
    """``--paths``: only the figures of the path users feel (issue 25): an update batched and
    alone on both databases, and the webhook worker."""
    path, lone, _ = timed("sqlite path", lambda: sqlite_path(workdir, plan))
    postgres, pg_lone = timed("postgres path", lambda: postgres_path(plan)) or (None, None)
    hooked = WEBHOOK_QUICK if plan.quick else WEBHOOK_FULL
    webhook = timed(
        "webhook worker",
        lambda: measure_webhook(
            workdir / "webhook",
            seconds=hooked.seconds,
            rate=100,
            chats=100,
            runs=hooked.runs,
            warmup=hooked.warmup,
        ),
    )
    return {
        "overhead_vs_echo": rounded(path.overhead_vs_echo),
        "pg_overhead_vs_echo": rounded(postgres.overhead_vs_echo) if postgres else None,
        "lone_overhead_vs_echo": rounded(lone.overhead_vs_echo),
        "pg_lone_overhead_vs_echo": rounded(pg_lone.overhead_vs_echo) if pg_lone else None,
        **webhook.figures(),
        "detail": {
            "sqlite_path": path.detail(),
            "postgres_path": postgres.detail() if postgres else None,
            "sqlite_lone": lone.detail(),
            "postgres_lone": pg_lone.detail() if pg_lone else None,
            "webhook": webhook.detail(),
            "revision": revision(),
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, 10k history")
    parser.add_argument("--paths", action="store_true", help="only the path figures (issue 25)")
    args = parser.parse_args(argv)
    quiet_logs()
    with tempfile.TemporaryDirectory(prefix="jifen-bench-") as tmp:
        plan = QUICK if args.quick else FULL
        figures = run_paths(plan, Path(tmp)) if args.paths else run(plan, Path(tmp))
    print(json.dumps(figures, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
