"""Every command against the size of history: ``<command>_ratio_100k``, ``chart_ms_100k``,
``export_rows_per_s``, ``peak_rss_growth_mb_100k``, ``max_loop_block_ms``.

Two chats play ``SMALL_HANDS`` hands each through the full path: ``MAHJONG`` (a 510K table,
then a mahjong table left open) and ``MARATHON`` (a 510K marathon left open). The SQLite file
is copied and, in the copy, both ledgers are bulk-replicated (``bench.ledger``) to ``big_hands``
each. Every command is then timed through ``process_update`` in both databases, alternately,
each database with its own Application; a ratio is the big median over the small one. ``/undo``
is timed alone; the hand it removed is recorded again, untimed, before the next repetition.
``undo_named`` is ``/undo <n>`` of an older hand, the tenth live hand before the table's last
(its number looked up, untimed, before each repetition).
``me`` is ``/me`` in a member's private chat, ``rating`` and ``summary`` ``/rating`` and
``/summary`` in ``MAHJONG``, whose rating is on in both databases; in the big one each copy of the
template is a day after the one before, so its history is many nights and sittings.

Last, ``MAHJONG``'s season is archived as ``/reset`` does (its open table moves to a new, empty
season) and ``after_reset`` times the new season's first hand (undone, untimed, before the next
repetition): seasons archived before must not slow the current one.

While the big chat runs each command once more, a ticker on the same event loop records the
longest stall and another chat (``MARATHON``, of the small database's Application) asks
``/standings``: ``max_loop_block_ms`` and ``standings_during_ms`` (another chat's answer while
a long season is read).
``peak_rss_growth_mb_100k`` is the largest RSS a sampling thread (every 2 ms) sees during one
command in the big database, less the RSS before it; the largest over all commands. The RSS of
the bot's child processes (``/chart`` draws in one) is sampled beside it:
``detail.commands.children_peak_rss_mb``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import sqlite3
import threading
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Engine

from bench import ledger
from bench.harness import Driver, Message, bot_driver, migrated_engine, players
from bench.history import copy_database, play
from bench.product import Chat
from bench.timing import median
from bench.workload import K510_CYCLE, MAHJONG_CYCLE, Table, hand_count, seating

SMALL_HANDS = 100
MAHJONG = Chat(-1_009_100_001, "supergroup", title="mahjong history")
MARATHON = Chat(-1_009_100_002, "supergroup", title="marathon history")
BYSTANDER = Chat(-1_009_100_003, "supergroup", title="elsewhere")
ME = Chat(players(0)[1].id, "private")  # /me: the private chat of a player of ``MAHJONG``
CHATS = (MAHJONG, MARATHON, BYSTANDER, ME)
WARMUP = 2
REDO = {MAHJONG.id: "/hu 1 zimo", MARATHON.id: K510_CYCLE[0]}

#: key → (chat, command): what is timed (``undo`` alone; its hand is recorded again after).
COMMANDS: dict[str, tuple[Chat, str]] = {
    "undo": (MAHJONG, "/undo"),
    "marathon_undo": (MARATHON, "/undo"),
    "undo_named": (MAHJONG, "/undo {older}"),
    "standings": (MAHJONG, "/standings"),
    "marathon_standings": (MARATHON, "/standings"),
    "history": (MAHJONG, "/history"),
    "settle": (MAHJONG, "/settle"),
    "seasons": (MAHJONG, "/seasons"),
    "rules": (MAHJONG, "/rules"),
    "stats": (MAHJONG, "/stats"),
    "chart": (MAHJONG, "/chart"),
    "export": (MAHJONG, "/export"),
    "me": (ME, "/me"),
    "rating": (MAHJONG, "/rating"),
    "summary": (MAHJONG, "/summary"),
}
AFTER_RESET = "/hu 1 zimo"  # ``after_reset``: the first hand of a season after a big one
KEYS = (*COMMANDS, "after_reset")  # every ``<key>_ratio_100k``


def _played(
    chat: Chat, index: int, game: str, cycle: tuple[str, ...], wanted: int
) -> list[Message]:
    users = players(index)
    messages = seating(Table(index, chat, game))
    played: list[Message] = []
    while hand_count(played) < wanted:
        played.append(Message(chat, users[len(played) % 4], cycle[len(played) % len(cycle)]))
    return messages + played


def history() -> list[Message]:
    """``MAHJONG``: a fifth of its hands at 510K, then mahjong; ``MARATHON``: a marathon."""
    fifth = SMALL_HANDS // 5
    return [
        *_played(MAHJONG, 0, "510k", K510_CYCLE, fifth),
        *_played(MAHJONG, 0, "mahjong", MAHJONG_CYCLE, SMALL_HANDS - fifth),
        *_played(MARATHON, 1, "510k marathon", K510_CYCLE, SMALL_HANDS),
    ]


@dataclass
class CommandsResult:
    small_ms: dict[str, float]
    big_ms: dict[str, float]
    small_hands: int
    big_hands: int
    reps: int
    build_s: float
    export_rows: int = 0
    peak_growth_mb: dict[str, float] = field(default_factory=dict)
    children_peak_mb: dict[str, float] = field(default_factory=dict)  # /chart's drawing process
    loop_block_ms: dict[str, float] = field(default_factory=dict)
    standings_during_ms: dict[str, float] = field(default_factory=dict)

    def ratio(self, key: str) -> float:
        return self.big_ms[key] / self.small_ms[key]

    @property
    def export_rows_per_s(self) -> float:
        return self.export_rows / (self.big_ms["export"] / 1000)

    def detail(self) -> dict[str, Any]:
        return {
            "small_ms": {k: round(v, 2) for k, v in self.small_ms.items()},
            "big_ms": {k: round(v, 2) for k, v in self.big_ms.items()},
            "small_hands": self.small_hands,
            "big_hands": self.big_hands,
            "export_rows": self.export_rows,
            "peak_rss_growth_mb": {k: round(v, 1) for k, v in self.peak_growth_mb.items()},
            "children_peak_rss_mb": {k: round(v, 1) for k, v in self.children_peak_mb.items()},
            "loop_block_ms": {k: round(v, 1) for k, v in self.loop_block_ms.items()},
            "standings_during_ms": {k: round(v, 1) for k, v in self.standings_during_ms.items()},
            "reps": self.reps,
            "build_s": round(self.build_s, 1),
        }


def build(workdir: Path, big_hands: int) -> tuple[Path, Path, int]:
    small, big = workdir / "commands-small.sqlite3", workdir / "commands-big.sqlite3"
    _rated(small, MAHJONG)
    copy_database(small, big)
    times = max(1, big_hands // SMALL_HANDS)
    engine = migrated_engine(f"sqlite:///{big}")
    try:
        hands = ledger.replicate(engine, MAHJONG.id, times)
        ledger.replicate(engine, MARATHON.id, times)
        _nights(engine, MAHJONG, times)
    finally:
        engine.dispose()
    _rated(big, MAHJONG)
    return small, big, hands


def _nights(engine: Engine, chat: Chat, times: int) -> None:
    """Each copy of the template a day after the one before (the template was played in a few
    seconds): a long history is many nights, so /summary's night and /rating's sittings are
    those of a real group's, not 100,000 hands in one evening."""
    with engine.begin() as conn:
        per = conn.exec_driver_sql(
            "SELECT count(*) FROM event WHERE chat_id = ?", (chat.id,)
        ).scalar_one() // max(times, 1)
        conn.exec_driver_sql(
            "UPDATE event SET created_at = strftime('%Y-%m-%d %H:%M:%f', created_at,"
            " '+' || ((seq - 1) / ?) || ' days') WHERE chat_id = ?",
            (max(per, 1), chat.id),
        )


def _rated(path: Path, chat: Chat) -> None:
    """``/set rating on`` for the chat (untimed); an older revision kept the rating's view:
    built from the ledger then, as its service did."""
    from service import rating  # here: `python -m bench --paths` of an older tree
    from storage.unit_of_work import UnitOfWork

    engine = migrated_engine(f"sqlite:///{path}")
    try:
        with UnitOfWork(engine).transaction() as db:
            db.exec_driver_sql("UPDATE chat SET rating = 1 WHERE id = ?", (chat.id,))
            rebuild = getattr(rating, "rebuild", None)
            if rebuild is not None:
                rebuild(db, chat.id)
    finally:
        engine.dispose()


async def _timed(driver: Driver, chat: Chat, text: str) -> float:
    run = await driver.run(driver.prepare([Message(chat, players(0)[1], text)]))
    if run.replies < 1:
        raise RuntimeError(f"{text} got no answer")
    return run.wall


OLDER = 10  # ``undo_named`` undoes the live hand this many before the chat's last


def _older_hand(engine: Engine, chat: Chat) -> int:
    """The number of the chat's live hand ``OLDER`` hands before its last."""
    with engine.connect() as conn:
        number = conn.exec_driver_sql(
            "SELECT hand_no FROM event WHERE chat_id = ? AND kind = 'hand' AND undone_by IS NULL"
            " ORDER BY seq DESC LIMIT 1 OFFSET ?",
            (chat.id, OLDER),
        ).scalar()
    if number is None:
        raise RuntimeError(f"{chat.title} has no live hand {OLDER} before its last")
    return int(number)


async def _command(driver: Driver, engine: Engine, key: str) -> float:
    """One timed command; an undone hand is recorded again (untimed)."""
    chat, text = COMMANDS[key]
    if "{older}" in text:
        text = text.format(older=_older_hand(engine, chat))
    wall = await _timed(driver, chat, text)
    if text.startswith("/undo"):
        await _timed(driver, chat, REDO[chat.id])
    return wall


async def _ticking(work: Awaitable[Any]) -> float:
    """The longest the loop stalled (ms) while ``work`` ran."""
    longest, done = 0.0, False

    async def tick() -> None:
        nonlocal longest
        while not done:
            start = time.perf_counter()
            await asyncio.sleep(0.001)
            longest = max(longest, time.perf_counter() - start - 0.001)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0)
    try:
        await work
    finally:
        done = True
        await ticker
    return 1000 * longest


PAGE_MB = os.sysconf("SC_PAGE_SIZE") / 2**20


def _rss_mb(pid: int | str = "self") -> float:
    try:
        with open(f"/proc/{pid}/statm") as statm:
            return int(statm.read().split()[1]) * PAGE_MB
    except (FileNotFoundError, ProcessLookupError):  # a child that just ended
        return 0.0


def _children_rss_mb() -> float:
    """The RSS of this process's children (the drawing process of /chart)."""
    return sum(_rss_mb(child.pid) for child in multiprocessing.active_children() if child.pid)


class _RssPeak(threading.Thread):
    """The largest RSS seen until stopped, of this process and of its children together."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.peak, self.stop = _rss_mb(), threading.Event()
        self.children = _children_rss_mb()

    def run(self) -> None:
        while not self.stop.wait(0.002):
            self.peak = max(self.peak, _rss_mb())
            self.children = max(self.children, _children_rss_mb())


async def _heavy(
    driver: Driver, engine: Engine, other: Driver, key: str, result: CommandsResult
) -> None:
    """``key`` in the big chat while another chat asks /standings (its own Application: the
    product serves chats concurrently, which one Driver.run does not model)."""
    before, sampler = _rss_mb(), _RssPeak()
    sampler.start()
    standings_at: list[float] = []

    async def bystander() -> None:
        await asyncio.sleep(0.002)
        standings_at.append(await _timed(other, MARATHON, "/standings"))

    result.loop_block_ms[key] = await _ticking(
        asyncio.gather(_command(driver, engine, key), bystander())
    )
    result.standings_during_ms[key] = 1000 * standings_at[0]
    sampler.stop.set()
    sampler.join()
    result.peak_growth_mb[key] = max(sampler.peak, _rss_mb()) - before
    result.children_peak_mb[key] = sampler.children


async def measure_commands(workdir: Path, *, big_hands: int, reps: int) -> CommandsResult:
    workdir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    await play(workdir / "commands-small.sqlite3", history(), CHATS)
    small_path, big_path, hands = build(workdir, big_hands)
    build_s = time.perf_counter() - start
    urls = [f"sqlite:///{p}" for p in (small_path, big_path)]
    engines = [migrated_engine(url) for url in urls]
    drivers = [await bot_driver(e, url, CHATS) for e, url in zip(engines, urls, strict=True)]
    times: dict[str, tuple[list[float], list[float]]] = {k: ([], []) for k in COMMANDS}
    try:
        for rep in range(WARMUP + reps):
            for key in COMMANDS:
                for which, (driver, engine) in enumerate(zip(drivers, engines, strict=True)):
                    wall = await _command(driver, engine, key)
                    if rep >= WARMUP:
                        times[key][which].append(wall)
        result = CommandsResult(
            small_ms={k: 1000 * median(v[0]) for k, v in times.items()},
            big_ms={k: 1000 * median(v[1]) for k, v in times.items()},
            small_hands=SMALL_HANDS,
            big_hands=hands,
            reps=reps,
            build_s=build_s,
            export_rows=_export_rows(big_path),
        )
        for key in COMMANDS:
            await _heavy(drivers[1], engines[1], drivers[0], key, result)
        await _after_reset(drivers, engines, reps, result)
    finally:
        for driver in drivers:
            await driver.close()
        for engine in engines:
            engine.dispose()
    return result


def _reset(engine: Engine, chat: Chat) -> None:
    """Archive the chat's season as ``/reset`` does: its open tables move to a new one."""
    from storage.gateway import chats, tables  # here: `python -m bench --paths` of an older tree
    from storage.models import utcnow
    from storage.unit_of_work import UnitOfWork

    with UnitOfWork(engine).transaction() as db:
        old = chats.current_season(db, chat.id)
        if old is None:
            raise RuntimeError(f"{chat.title} has no season")
        chats.archive_season(db, old.id, utcnow())
        new = chats.open_season(db, chat.id, old.number + 1)
        tables.move_open_tables(db, chat.id, new.id)


async def _after_reset(
    drivers: list[Driver], engines: list[Engine], reps: int, result: CommandsResult
) -> None:
    """``after_reset``: a new season's first hand, after 100 and after ``big_hands``."""
    for engine in engines:
        _reset(engine, MAHJONG)
    walls: tuple[list[float], list[float]] = ([], [])
    for rep in range(WARMUP + reps):
        for which, driver in enumerate(drivers):
            wall = await _timed(driver, MAHJONG, AFTER_RESET)
            await _timed(driver, MAHJONG, "/undo")
            if rep >= WARMUP:
                walls[which].append(wall)
    result.small_ms["after_reset"] = 1000 * median(walls[0])
    result.big_ms["after_reset"] = 1000 * median(walls[1])


def _export_rows(path: Path) -> int:
    """The rows /export writes for ``MAHJONG``'s season: one per transfer."""
    with sqlite3.connect(path) as db:
        row = db.execute(
            "SELECT count(*) FROM transfer t JOIN season s ON s.id = t.season_id"
            " WHERE s.chat_id = ? AND s.archived_at IS NULL",
            (MAHJONG.id,),
        ).fetchone()
    return int(row[0])
