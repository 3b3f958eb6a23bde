"""``standings_ratio_100k``: /standings must not get slower as the ledger grows.

One chat plays ``SMALL_HANDS`` hands through the full path (a mahjong table, then a 510K table:
both sections show in /standings). Its SQLite file is copied (backup API) and, in the copy, the
ledger is bulk-replicated (``bench.ledger``) to ``big_hands``. The same /standings update is
then timed through ``process_update`` in both databases, alternately, each with its own
Application; the ratio of the medians is reported.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from bench import ledger
from bench.harness import Message, bot_driver, migrated_engine, players
from bench.history import copy_database, play
from bench.product import Chat
from bench.timing import median
from bench.workload import K510_CYCLE, MAHJONG_CYCLE, Table, hand_count, seating

SMALL_HANDS = 100
CHAT = Chat(-1_009_000_001, "supergroup", title="history")
WARMUP = 5


@dataclass(frozen=True)
class StandingsResult:
    small_ms: float
    big_ms: float
    small_hands: int
    big_hands: int
    reps: int
    build_s: float

    @property
    def ratio(self) -> float:
        return self.big_ms / self.small_ms

    def detail(self) -> dict[str, float | int]:
        return {
            "small_ms": round(self.small_ms, 3),
            "big_ms": round(self.big_ms, 3),
            "small_hands": self.small_hands,
            "big_hands": self.big_hands,
            "reps": self.reps,
            "build_s": round(self.build_s, 1),
        }


def history(hands: int) -> list[Message]:
    """Half the hands at a mahjong table, then a 510K table for the rest."""
    users = players(0)
    messages: list[Message] = []
    for game, cycle, wanted in (
        ("mahjong", MAHJONG_CYCLE, hands // 2),
        ("510k", K510_CYCLE, hands - hands // 2),
    ):
        messages += seating(Table(0, CHAT, game))
        played: list[Message] = []
        while hand_count(played) < wanted:
            text = cycle[len(played) % len(cycle)]
            played.append(Message(CHAT, users[len(played) % 4], text))
        messages += played
    return messages


def _balances(path: Path) -> dict[tuple[str, str], Fraction]:
    engine = migrated_engine(f"sqlite:///{path}")
    try:
        return ledger.balances(engine, CHAT.id)
    finally:
        engine.dispose()


def build(workdir: Path, big_hands: int) -> tuple[Path, Path, int]:
    """Small and big databases of the same chat; the big one's hand count.

    Check: every balance of the big chat is ``times`` × the small chat's (the copies are exact).
    """
    small, big = workdir / "small.sqlite3", workdir / "big.sqlite3"
    copy_database(small, big)
    times = max(1, big_hands // SMALL_HANDS)
    engine = migrated_engine(f"sqlite:///{big}")
    try:
        hands = ledger.replicate(engine, CHAT.id, times)
    finally:
        engine.dispose()
    expected = {key: times * amount for key, amount in _balances(small).items()}
    if _balances(big) != expected:
        raise RuntimeError("bulk ledger: balances are not the scaled small ones")
    return small, big, hands


async def _alternate(paths: tuple[Path, Path], reps: int) -> tuple[list[float], list[float]]:
    """/standings in the small then the big database, ``WARMUP + reps`` times; timed reps."""
    engines = [migrated_engine(f"sqlite:///{path}") for path in paths]
    drivers = [
        await bot_driver(engine, f"sqlite:///{path}", [CHAT])
        for engine, path in zip(engines, paths, strict=True)
    ]
    ask = Message(CHAT, players(0)[1], "/standings")
    times: tuple[list[float], list[float]] = ([], [])
    try:
        for rep in range(WARMUP + reps):
            for which, driver in enumerate(drivers):
                run = await driver.run(driver.prepare([ask]))
                if run.replies != 1:
                    raise RuntimeError("/standings got no answer")
                if rep >= WARMUP:
                    times[which].append(run.wall)
    finally:
        for driver in drivers:
            await driver.close()
        for engine in engines:
            engine.dispose()
    return times


async def measure_standings(workdir: Path, *, big_hands: int, reps: int) -> StandingsResult:
    """Median /standings time with ``big_hands`` of history over the same with 100."""
    start = time.perf_counter()
    await play(workdir / "small.sqlite3", history(SMALL_HANDS), [CHAT])
    small_path, big_path, hands = build(workdir, big_hands)
    build_s = time.perf_counter() - start
    small, big = await _alternate((small_path, big_path), reps)
    return StandingsResult(
        small_ms=1000 * median(small),
        big_ms=1000 * median(big),
        small_hands=SMALL_HANDS,
        big_hands=hands,
        reps=reps,
        build_s=build_s,
    )
