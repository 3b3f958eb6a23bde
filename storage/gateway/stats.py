"""A season's /stats, kept up to date: a recorded hand adds its tally (`scoring.hand_stats`),
its undo subtracts it, in the same transaction (four upserts of a few rows each, nothing read
first; one statement on PostgreSQL). Reading them is a few rows per player, whatever the
season's length."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from scoring.hand_stats import COUNTERS, Payment, hand_stats
from storage.rows import TransferRow
from storage.sql import Sql, insert_rows, placeholders

ADD_COUNTERS = ", ".join(f"{c} = stat_player.{c} + excluded.{c}" for c in COUNTERS)
PLAYER_COUNTS = f"stat_player (season_id, unit, player_id, {', '.join(COUNTERS)})"


def count_hand(
    db: Sql,
    season_id: int,
    game: str,
    data: Mapping[str, Any],
    transfers: Sequence[TransferRow],
    *,
    undo: bool = False,
) -> None:
    """Add a recorded hand to the season's statistics, or (`undo`) take it away."""
    sign = -1 if undo else 1
    tally = hand_stats(
        game, data, [Payment(t.payer_id, t.payee_id, t.amount, t.reason) for t in transfers]
    )
    db.run_all(
        (
            insert_rows(
                PLAYER_COUNTS,
                [
                    (season_id, tally.unit, pid, *(sign * counts[c] for c in COUNTERS))
                    for pid, counts in tally.counts.items()
                ],
                f" ON CONFLICT (season_id, unit, player_id) DO UPDATE SET {ADD_COUNTERS}",
            ),
            insert_rows(  # a row per (player, value): PostgreSQL updates a row once a statement
                "stat_win (season_id, unit, player_id, value, times)",
                [
                    (season_id, tally.unit, pid, str(value), sign * times)
                    for (pid, value), times in Counter(tally.wins).items()
                ],
                " ON CONFLICT (season_id, unit, player_id, value)"
                " DO UPDATE SET times = stat_win.times + excluded.times",
            ),
            insert_rows(
                "stat_pair (season_id, payer_id, payee_id, value, times)",
                [(season_id, a, b, str(value), sign) for (a, b), value in tally.pairs.items()],
                " ON CONFLICT (season_id, payer_id, payee_id, value)"
                " DO UPDATE SET times = stat_pair.times + excluded.times",
            ),
            insert_rows(
                "stat_hands (season_id, unit, live, undone)",
                [(season_id, tally.unit, sign, 1 if undo else 0)],
                " ON CONFLICT (season_id, unit) DO UPDATE SET live = stat_hands.live"
                " + excluded.live, undone = stat_hands.undone + excluded.undone",
            ),
        )
    )


#: Each statistics table: its key columns, and the columns that add up.
STAT_TABLES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "stat_player": (("season_id", "unit", "player_id"), COUNTERS),
    "stat_win": (("season_id", "unit", "player_id", "value"), ("times",)),
    "stat_pair": (("season_id", "payer_id", "payee_id", "value"), ("times",)),
    "stat_hands": (("season_id", "unit"), ("live", "undone")),
}
IDS = {"season_id": "season", "player_id": "player", "payer_id": "player", "payee_id": "player"}


def fold(db: Sql, seasons: Mapping[int, int], players: Mapping[int, int]) -> None:
    """Statistics of merged seasons and players (`{gone id: kept id}`) added into the rows of
    the ones they joined (a chat move): the counters are sums, so folding them is exact."""
    merged = {"season": dict(seasons), "player": dict(players)}
    for table, (keys, sums) in STAT_TABLES.items():
        id_keys = [k for k in keys if k in IDS and merged[IDS[k]]]
        if not id_keys:
            continue
        where = " OR ".join(f"{k} IN ({placeholders(len(merged[IDS[k]]))})" for k in id_keys)
        params = [i for k in id_keys for i in merged[IDS[k]]]
        rows = db.rows(f"SELECT {', '.join((*keys, *sums))} FROM {table} WHERE {where}", params)
        db.run(f"DELETE FROM {table} WHERE {where}", params)
        added = ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in sums)
        db.many(
            f"INSERT INTO {table} ({', '.join((*keys, *sums))})"
            f" VALUES ({placeholders(len(keys) + len(sums))})"
            f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET {added}",
            [
                tuple(
                    merged[IDS[k]].get(v, v) if k in IDS else v
                    for k, v in zip(keys, row[: len(keys)], strict=True)
                )
                + tuple(row[len(keys) :])
                for row in rows
            ],
        )


@dataclass(frozen=True)
class SeasonStats:
    counts: dict[tuple[str, int], dict[str, int]]  # (unit, player id) → counters
    wins: dict[tuple[str, int], list[tuple[Fraction, int]]]  # (unit, player id) → (value, times)
    # of the wins: mahjong wins, free rounds won
    pairs: dict[tuple[int, int], Fraction]  # (payer, payee) → paid in all (mahjong)
    hands: dict[str, tuple[int, int]]  # unit → (live, undone)


def season_stats(db: Sql, season_id: int) -> SeasonStats:
    counts = {
        (unit, pid): dict(zip(COUNTERS, values, strict=True))
        for unit, pid, *values in db.rows(
            f"SELECT unit, player_id, {', '.join(COUNTERS)} FROM stat_player"
            " WHERE season_id = ? AND hands > 0",
            (season_id,),
        )
    }
    wins: dict[tuple[str, int], list[tuple[Fraction, int]]] = {}
    for unit, pid, value, times in db.rows(
        "SELECT unit, player_id, value, times FROM stat_win WHERE season_id = ? AND times > 0",
        (season_id,),
    ):
        wins.setdefault((unit, pid), []).append((Fraction(value), int(times)))
    pairs: dict[tuple[int, int], Fraction] = {}
    for payer, payee, value, times in db.rows(
        "SELECT payer_id, payee_id, value, times FROM stat_pair WHERE season_id = ? AND times > 0",
        (season_id,),
    ):
        pairs[(payer, payee)] = pairs.get((payer, payee), Fraction(0)) + Fraction(value) * times
    hands = {
        unit: (int(live), int(undone))
        for unit, live, undone in db.rows(
            "SELECT unit, live, undone FROM stat_hands WHERE season_id = ?", (season_id,)
        )
    }
    return SeasonStats(counts, wins, pairs, hands)
