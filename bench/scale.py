"""``python -m bench.scale [--workers 1 2 3] [--quick]``: hands/s of several bot processes on
one PostgreSQL database (``scale`` in bench/RESULTS.md).

Each worker is a process of its own, as a deployment's webhook workers are: its own
Application over the same database, serving 20 chats of its own (mahjong, 510K and free
scoring in turn, interleaved as in ``bench.path``). The workers seat their tables and warm up,
wait for one another, then each delivers the same number of batches. The figure for N workers
is every worker's hands over the time from the first worker's start to the last one's end,
the median of the repetitions. Prints one JSON object; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing as mp
import sys
import time
from multiprocessing.synchronize import Barrier
from typing import Any

from bench import pg
from bench.harness import bot_driver, migrated_engine, quiet_logs
from bench.path import recorded_hands
from bench.timing import median, rounded
from bench.workload import Evening, chats_of, hand_count, seating, tables

CHAT_BLOCK = 1_000  # chat ids of worker i start at -1_008_000_000 - i * CHAT_BLOCK
UPDATE_BLOCK = 10_000_000  # and its update ids at 1 + i * UPDATE_BLOCK (each update is new)


async def _serve(url: str, worker: int, batches: int, per_table: int, start: Barrier) -> Any:
    tabs = tables(first_id=-1_008_000_000 - worker * CHAT_BLOCK)
    engine = migrated_engine(url)
    bot = await bot_driver(engine, url, chats_of(tabs), lean=True)
    bot.api.next_update_id = 1 + worker * UPDATE_BLOCK
    try:
        for table in tabs:
            await bot.run(bot.prepare(seating(table)))
        evening = Evening(tabs)
        warmup = evening.batch(2)
        await bot.run(bot.prepare(warmup))
        work = [evening.batch(per_table) for _ in range(batches)]
        updates = [bot.prepare(batch) for batch in work]
        start.wait()
        began = time.time()
        for batch in updates:
            await bot.run(batch)
        timed = sum(hand_count(batch) for batch in work)
        return began, time.time(), timed, timed + hand_count(warmup)
    finally:
        await bot.close()
        engine.dispose()


def _worker(url: str, worker: int, batches: int, per_table: int, start: Barrier, out: Any) -> None:
    quiet_logs()
    out.put(asyncio.run(_serve(url, worker, batches, per_table, start)))


def measure(workers: int, batches: int, per_table: int) -> dict[str, Any]:
    """One run of ``workers`` processes on a fresh database: hands/s and the check."""
    context = mp.get_context("spawn")
    with pg.fresh_database() as url:
        migrated_engine(url).dispose()
        start, out = context.Barrier(workers), context.Queue()
        procs = [
            context.Process(target=_worker, args=(url, i, batches, per_table, start, out))
            for i in range(workers)
        ]
        for proc in procs:
            proc.start()
        results = [out.get(timeout=600) for _ in procs]
        for proc in procs:
            proc.join()
        engine = migrated_engine(url)
        try:
            recorded = recorded_hands(engine)
        finally:
            engine.dispose()
    began, ended = min(r[0] for r in results), max(r[1] for r in results)
    timed = sum(r[2] for r in results)
    sent = sum(r[3] for r in results)
    if recorded != sent:
        raise RuntimeError(f"{sent} hands sent but {recorded} recorded")
    return {"hands_per_s": timed / (ended - began), "hands_timed": timed, "recorded": recorded}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--reps", type=int, default=3, help="runs per worker count")
    parser.add_argument("--quick", action="store_true", help="smaller batches, one run each")
    args = parser.parse_args(argv)
    if not pg.available():
        print("PostgreSQL does not answer", file=sys.stderr)
        return 1
    batches, per_table, reps = (3, 4, 1) if args.quick else (5, 20, args.reps)
    figures: dict[str, Any] = {}
    for workers in args.workers:
        runs = []
        for _ in range(reps):
            print(f"[scale] {workers} worker(s)", file=sys.stderr, flush=True)
            runs.append(measure(workers, batches, per_table))
        figures[f"pg_hands_per_s_{workers}_workers"] = rounded(
            median([r["hands_per_s"] for r in runs]), 1
        )
        figures[f"detail_{workers}_workers"] = runs
    one = figures.get("pg_hands_per_s_1_workers")
    for workers in args.workers:
        key = f"pg_hands_per_s_{workers}_workers"
        if one and workers != 1:
            figures[f"scale_{workers}_vs_1"] = rounded(figures[key] / one)
    figures["batches_per_worker"], figures["per_table"] = batches, per_table
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
