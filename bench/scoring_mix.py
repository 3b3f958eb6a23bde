"""``scoring_per_s``: ``scoring.settle_hand`` on a realistic mix of mahjong hands.

The mix is drawn from a seeded RNG with the shares an evening at the table has: mostly plain
self-draws and discards, some big patterns and flags, kongs in a third of the hands, a few
kong wins, last-tile wins, drawn hands, several winners on one discard and sealed players.
Hands the rules refuse are redrawn, so every timed call is a valid settlement.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

from bench.timing import median
from scoring import Kong, KongKind, MahjongHand, Pattern, ScoringError, Win, WinType, settle_hand

HOW_WEIGHTS = (
    (WinType.ZIMO, 30),
    (WinType.DIANPAO, 45),
    (WinType.GANGKAI, 5),
    (WinType.GANGPAO, 4),
    (WinType.QIANGGANG, 3),
    (WinType.HAIDILAO, 2),
    (WinType.HAIDIPAO, 2),
    (WinType.QUANQIUPAO, 1),
)
PATTERN_WEIGHTS = ((Pattern.JIHU, 65), (Pattern.PENGPENGHU, 20), (Pattern.QIDUI, 15))


def _pick(rng: random.Random, weighted: Sequence[tuple[object, int]]) -> object:
    items, weights = zip(*weighted, strict=True)
    return rng.choices(items, weights)[0]


def _kong(rng: random.Random, konger: int) -> Kong:
    kind = rng.choice((KongKind.AN, KongKind.MING, KongKind.BU))
    others = [s for s in range(4) if s != konger]
    return Kong(konger, kind, None if kind is KongKind.AN else rng.choice(others))


def _win(rng: random.Random, winner: int, how: WinType, discarder: int | None) -> Win:
    pattern = _pick(rng, PATTERN_WEIGHTS)
    assert isinstance(pattern, Pattern)
    chain_kongs: tuple[Kong, ...] = ()
    if how is WinType.GANGKAI:
        chain_kongs = tuple(_kong(rng, winner) for _ in range(rng.choice((1, 1, 1, 2))))
    if how is WinType.QIANGGANG and discarder is not None:
        chain_kongs = (
            Kong(discarder, KongKind.BU, rng.choice([s for s in range(4) if s != discarder])),
        )
    return Win(
        winner=winner,
        how=how,
        discarder=discarder,
        pattern=pattern,
        groups=rng.choice((0, 0, 0, 1)) if pattern is Pattern.QIDUI else 0,
        qingyise=rng.random() < 0.15,
        menqing=rng.random() < 0.2,
        quanqiuren=pattern is Pattern.PENGPENGHU and rng.random() < 0.1,
        chain_kongs=chain_kongs,
        sealed=rng.choice((None,) * 19 + (rng.randrange(4),)),
    )


def random_hand(rng: random.Random) -> MahjongHand:
    dealer = rng.randrange(4)
    kongs = tuple(_kong(rng, rng.randrange(4)) for _ in range(rng.choice((0, 0, 1, 1, 2))))
    if rng.random() < 0.06:
        return MahjongHand(dealer=dealer, kongs=kongs)  # 流局
    how = _pick(rng, HOW_WEIGHTS)
    assert isinstance(how, WinType)
    winner = rng.randrange(4)
    discarder = rng.choice([s for s in range(4) if s != winner]) if how.needs_discarder else None
    wins = [_win(rng, winner, how, discarder)]
    if how is WinType.DIANPAO and discarder is not None and rng.random() < 0.05:
        second = rng.choice([s for s in range(4) if s not in (winner, discarder)])
        wins.append(_win(rng, second, how, discarder))
    return MahjongHand(dealer=dealer, wins=tuple(wins), kongs=kongs)


def mix(count: int, seed: int = 7) -> list[MahjongHand]:
    """``count`` valid hands (refused draws are replaced)."""
    rng = random.Random(seed)
    hands: list[MahjongHand] = []
    while len(hands) < count:
        hand = random_hand(rng)
        try:
            settle_hand(hand)
        except ScoringError:
            continue
        hands.append(hand)
    return hands


def measure_scoring(*, hands: int, reps: int) -> float:
    """Median settlements per second over ``reps`` passes of the mix."""
    sample = mix(hands)
    rates = []
    for _ in range(reps):
        start = time.perf_counter()
        for hand in sample:
            settle_hand(hand)
        rates.append(len(sample) / (time.perf_counter() - start))
    return median(rates)
