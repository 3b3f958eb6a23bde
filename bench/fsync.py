"""The disk's floor: one durable SQLite WAL commit (synchronous=FULL, as the product runs)."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from bench.timing import median


def commit_ms(workdir: Path, commits: int = 100) -> float:
    """Median milliseconds of a one-row write transaction in a WAL file with full sync."""
    path = workdir / "fsync-probe.sqlite3"
    conn = sqlite3.connect(path, isolation_level=None)
    try:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=FULL")
        conn.execute("CREATE TABLE probe (n INTEGER)")
        times = []
        for n in range(commits):
            start = time.perf_counter()
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("INSERT INTO probe VALUES (?)", (n,))
            conn.execute("COMMIT")
            times.append(time.perf_counter() - start)
    finally:
        conn.close()
    return 1000 * median(times)
