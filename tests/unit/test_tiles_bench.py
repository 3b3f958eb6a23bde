"""bench/tiles.py's hands are winning hands, and reading one costs well under a millisecond."""

from __future__ import annotations

from bench.tiles import HANDS, measure_tiles


def test_the_bench_hands_read_under_a_millisecond_each() -> None:
    assert len(set(HANDS)) == len(HANDS) == 16
    assert measure_tiles(reps=3, rounds=5) >= 1_000  # the target: under 1 ms a read
