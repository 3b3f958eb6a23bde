"""``hands_per_s`` and ``overhead_vs_echo``: interleaved evenings through the whole bot.

Per repetition, the same batch of messages (20 chats round-robin, mahjong and 510K) goes once
through a bare PTB echo bot and once through the product Application, each over its own fake
Bot API, with ``sendMessage`` answered by ``bench.wire.LeanRequest``. The product path commits
every hand (SQLite WAL with its default synchronous=FULL, or PostgreSQL) before its reply is
sent; nothing is relaxed here.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Engine

from bench.harness import Driver, bot_driver, echo_driver, naive_driver
from bench.timing import median
from bench.workload import Evening, Table, chats_of, hand_count, seating, tables


@dataclass(frozen=True)
class PathResult:
    hands_per_s: float
    bot_ms_per_update: float
    echo_ms_per_update: float
    bot_cpu_ms_per_update: float
    echo_cpu_ms_per_update: float
    updates_per_rep: int
    reps: int
    hands_checked: int

    @property
    def overhead_vs_echo(self) -> float:
        return self.bot_ms_per_update / self.echo_ms_per_update

    def detail(self) -> dict[str, float | int]:
        return {
            "bot_ms_per_update": round(self.bot_ms_per_update, 3),
            "echo_ms_per_update": round(self.echo_ms_per_update, 3),
            "bot_cpu_ms_per_update": round(self.bot_cpu_ms_per_update, 3),
            "echo_cpu_ms_per_update": round(self.echo_cpu_ms_per_update, 3),
            "updates_per_rep": self.updates_per_rep,
            "reps": self.reps,
            "hands_recorded": self.hands_checked,
        }


async def _seat_all(bot: Driver, tabs: Sequence[Table]) -> None:
    for table in tabs:
        await bot.run(bot.prepare(seating(table)))


def recorded_hands(engine: Engine) -> int:
    """Hands in the ledger (the check that every command of the bench succeeded)."""
    with engine.connect() as conn:
        count = conn.execute(text("SELECT count(*) FROM event WHERE kind = 'hand'")).scalar_one()
    return int(count)


async def measure_path(
    engine: Engine,
    url: str,
    reps: int,
    per_table: int,
    warmup_per_table: int,
    *,
    serial: bool = False,
) -> PathResult:
    """Median throughput of the product path and its cost relative to an echo bot.

    Every repetition sends ``per_table`` commands to each of the 20 chats, round-robin.
    """
    tabs = tables()
    bot = await bot_driver(engine, url, chats_of(tabs), serial=serial, lean=True)
    echo = await echo_driver(chats_of(tabs), lean=True)
    rates: list[float] = []
    per_update: dict[str, list[float]] = {"bot": [], "echo": [], "bot_cpu": [], "echo_cpu": []}
    try:
        await _seat_all(bot, tabs)
        evening = Evening(tabs)
        warmup = evening.batch(warmup_per_table)
        await echo.run(echo.prepare(warmup))
        await bot.run(bot.prepare(warmup))
        sent = hand_count(warmup)
        for _ in range(reps):
            batch = evening.batch(per_table)
            echo_updates, bot_updates = echo.prepare(batch), bot.prepare(batch)
            gc.collect()  # neither run pays for the other's garbage
            echo_run = await echo.run(echo_updates)
            gc.collect()
            bot_run = await bot.run(bot_updates)
            if bot_run.replies != len(batch) or echo_run.replies != len(batch):
                raise RuntimeError(f"{len(batch)} updates, {bot_run.replies} replies")
            rates.append(hand_count(batch) / bot_run.wall)
            for key, seconds in (
                ("bot", bot_run.wall),
                ("echo", echo_run.wall),
                ("bot_cpu", bot_run.cpu),
                ("echo_cpu", echo_run.cpu),
            ):
                per_update[key].append(1000 * seconds / len(batch))
            sent += hand_count(batch)
    finally:
        await bot.close()
        await echo.close()
    checked = recorded_hands(engine)
    if checked != sent:
        raise RuntimeError(f"{sent} hands sent but {checked} recorded: a command failed")
    return PathResult(
        hands_per_s=median(rates),
        bot_ms_per_update=median(per_update["bot"]),
        echo_ms_per_update=median(per_update["echo"]),
        bot_cpu_ms_per_update=median(per_update["bot_cpu"]),
        echo_cpu_ms_per_update=median(per_update["echo_cpu"]),
        updates_per_rep=len(batch),
        reps=reps,
        hands_checked=checked,
    )


@dataclass(frozen=True)
class LoneResult:
    """One update at a time (what a webhook request, or a quiet evening, sees): each update is
    delivered alone and awaited before the next, interleaved with the echo bot's and the
    naive peer's (``bench.naive_orm``) on the same messages. The ratios are of CPU time (the
    database server's, PostgreSQL's, is not in it)."""

    bot_ms: float
    echo_ms: float
    naive_ms: float
    bot_cpu_ms: float
    echo_cpu_ms: float
    naive_cpu_ms: float
    updates: int

    @property
    def overhead_vs_echo(self) -> float:
        return self.bot_cpu_ms / self.echo_cpu_ms

    @property
    def vs_naive_orm(self) -> float:
        return self.bot_cpu_ms / self.naive_cpu_ms

    def detail(self) -> dict[str, float | int]:
        return {
            "bot_ms_per_update": round(self.bot_ms, 3),
            "echo_ms_per_update": round(self.echo_ms, 3),
            "naive_ms_per_update": round(self.naive_ms, 3),
            "bot_cpu_ms_per_update": round(self.bot_cpu_ms, 3),
            "echo_cpu_ms_per_update": round(self.echo_cpu_ms, 3),
            "naive_cpu_ms_per_update": round(self.naive_cpu_ms, 3),
            "cpu_vs_echo": round(self.bot_cpu_ms / self.echo_cpu_ms, 2),
            "wall_vs_echo": round(self.bot_ms / self.echo_ms, 2),
            "naive_cpu_vs_echo": round(self.naive_cpu_ms / self.echo_cpu_ms, 2),
            "updates": self.updates,
        }


async def measure_lone(
    engine: Engine, url: str, reps: int, per_table: int, naive_url: str
) -> LoneResult:
    """Medians over `reps` rounds of the mean wall and CPU time of an update delivered alone
    (the bot's, and in the same round the echo bot's and the naive peer's, its tables on
    `naive_url`, on the same messages)."""
    tabs = tables()
    bot = await bot_driver(engine, url, chats_of(tabs), lean=True)
    echo = await echo_driver(chats_of(tabs), lean=True)
    naive = await naive_driver(chats_of(tabs), naive_url, lean=True)
    drivers = (("echo", echo), ("naive", naive), ("bot", bot))
    figures: dict[str, list[float]] = {
        key: [] for name, _ in drivers for key in (name, f"{name}_cpu")
    }
    sent = 0
    try:
        await _seat_all(bot, tabs)
        evening = Evening(tabs)
        warmup = evening.batch(2)
        for _, driver in drivers:
            for update in driver.prepare(warmup):
                await driver.run([update])
        for _ in range(reps):
            batch = evening.batch(per_table)
            for name, driver in drivers:
                updates = driver.prepare(batch)
                gc.collect()
                runs = [await driver.run([update]) for update in updates]
                if sum(run.replies for run in runs) != len(updates):
                    raise RuntimeError(f"{name}: {len(updates)} updates, fewer replies")
                figures[name].append(1000 * sum(r.wall for r in runs) / len(runs))
                figures[f"{name}_cpu"].append(1000 * sum(r.cpu for r in runs) / len(runs))
            sent += len(batch)
    finally:
        for _, driver in drivers:
            await driver.close()
        naive.app.bot_data["engine"].dispose()
    return LoneResult(
        bot_ms=median(figures["bot"]),
        echo_ms=median(figures["echo"]),
        naive_ms=median(figures["naive"]),
        bot_cpu_ms=median(figures["bot_cpu"]),
        echo_cpu_ms=median(figures["echo_cpu"]),
        naive_cpu_ms=median(figures["naive_cpu"]),
        updates=sent,
    )
