"""``tiles_read_per_s``: ``scoring.tiles.read_tiles`` on hands as players write them.

The hands have the shapes a table sees: plain hands with runs (most), all pungs, seven pairs
with and without sets of four, exposed pungs and kongs, concealed kongs, one suit (whose many
readings are the slowest to search), spaced and Unicode writing; each is read for a self-draw
and for a discard. Every timed read is of a winning hand (a refused one would stop early).
"""

from __future__ import annotations

import time

from bench.timing import median
from scoring import WinType
from scoring.tiles import read_tiles

HANDS = (
    "123m456m789s55s111z",
    "234m678m345p567s99s",
    "[777p] 123m456m789s55s",
    "[111z] [555z] 234p678s33s",
    "123m 456m 789p 234s 55s",
    "11122233344455m",
    "11112222333344m",
    "11123456789999m",
    "[2222s] (9999m) 123m456p77z",
    "(1111m)(2222m)(3333m)123p55s",
    "111m222p333s444z55z",
    "[111m] [222p] [333s] [444z] 55z",
    "11335577m99p1144s",
    "11335577m99p1111s",
    "1122334455667m7m",
    "🀇🀈🀉🀊🀋🀌🀍🀎🀏🀙🀙🀙🀐🀐",
)
HOWS = (WinType.ZIMO, WinType.DIANPAO)


def measure_tiles(reps: int, rounds: int = 50) -> float:
    """Reads per second: the median of `reps` timings of `rounds` passes over the hands."""
    for text in HANDS:  # every hand is one: a refusal here is a mistake in the list
        read_tiles(text, WinType.ZIMO)
    rates = []
    for _ in range(reps):
        start = time.perf_counter()
        for _ in range(rounds):
            for text in HANDS:
                for how in HOWS:
                    read_tiles(text, how)
        rates.append(rounds * len(HANDS) * len(HOWS) / (time.perf_counter() - start))
    return median(rates)
