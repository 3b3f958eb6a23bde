"""A season's /stats, kept up to date: a recorded hand adds its tally (`scoring.hand_stats`),
its undo subtracts it, in the same transaction (four upserts of a few rows each, nothing read
first). Reading them is a few rows per player, whatever the season's length."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from sqlalchemy import BindParameter, Table, bindparam, delete, func, or_, select
from sqlalchemy.engine import Connection

from scoring.hand_stats import COUNTERS, Payment, hand_stats
from storage.gateway import Upsert
from storage.models import (
    TransferRow,
    reminder,
    stat_hands,
    stat_mate,
    stat_pair,
    stat_player,
    stat_win,
)

#: Each statistics table: its key columns, and the columns that add up.
STAT_TABLES: dict[str, tuple[Table, tuple[str, ...], tuple[str, ...]]] = {
    "stat_player": (stat_player, ("season_id", "unit", "player_id"), COUNTERS),
    "stat_win": (stat_win, ("season_id", "unit", "player_id", "value"), ("times",)),
    "stat_pair": (stat_pair, ("season_id", "payer_id", "payee_id", "value"), ("times",)),
    "stat_hands": (stat_hands, ("season_id", "unit"), ("live", "undone")),
    "stat_mate": (stat_mate, ("season_id", "player_id", "mate_id"), ("hands",)),
}
IDS = {"season_id": "season"} | dict.fromkeys(
    ("player_id", "payer_id", "payee_id", "mate_id"), "player"
)


def _adding(table: Table, keys: Sequence[str], sums: Sequence[str]) -> Upsert:
    """INSERT of a row, or where its key has one, its sums added to that row's."""
    return Upsert(
        table,
        lambda stmt: stmt.on_conflict_do_update(
            index_elements=list(keys),
            set_={c: table.c[c] + stmt.excluded[c] for c in sums},
        ),
    )


_ADD = {name: _adding(table, keys, sums) for name, (table, keys, sums) in STAT_TABLES.items()}


def count_hand(
    db: Connection,
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
    unit = tally.unit
    rows: dict[str, list[dict[str, Any]]] = {
        "stat_player": [
            {"season_id": season_id, "unit": unit, "player_id": pid}
            | {c: sign * counts[c] for c in COUNTERS}
            for pid, counts in tally.counts.items()
        ],
        "stat_win": [  # a row per (player, value): PostgreSQL updates a row once a statement
            {"season_id": season_id, "unit": unit, "player_id": pid, "value": value}
            | {"times": sign * times}
            for (pid, value), times in Counter(tally.wins).items()
        ],
        "stat_pair": [
            {"season_id": season_id, "payer_id": a, "payee_id": b, "value": value, "times": sign}
            for (a, b), value in tally.pairs.items()
        ],
        "stat_hands": [
            {"season_id": season_id, "unit": unit, "live": sign, "undone": 1 if undo else 0}
        ],
        "stat_mate": [
            {"season_id": season_id, "player_id": a, "mate_id": b, "hands": sign}
            for a in tally.people
            for b in tally.people
            if a != b
        ],
    }
    for name, values in rows.items():
        if values:
            db.execute(_ADD[name].of(db), values)


def fold(db: Connection, seasons: Mapping[int, int], players: Mapping[int, int]) -> None:
    """Statistics of merged seasons and players (`{gone id: kept id}`) added into the rows of
    the ones they joined (a chat move): the counters are sums, so folding them is exact."""
    merged = {"season": dict(seasons), "player": dict(players)}
    for name, (table, keys, sums) in STAT_TABLES.items():
        id_keys = [k for k in keys if k in IDS and merged[IDS[k]]]
        if not id_keys:
            continue
        where = or_(*(table.c[k].in_(list(merged[IDS[k]])) for k in id_keys))
        rows = db.execute(select(*(table.c[c] for c in (*keys, *sums))).where(where)).all()
        db.execute(delete(table).where(where))
        moved = [
            {
                k: merged[IDS[k]].get(v, v) if k in IDS else v
                for k, v in zip((*keys, *sums), row, strict=True)
            }
            for row in rows
        ]
        for values in moved:  # one at a time: two gone rows may fold into one kept row
            db.execute(_ADD[name].of(db), values)


@dataclass(frozen=True)
class SeasonStats:
    counts: dict[tuple[str, int], dict[str, int]]  # (unit, player id) → counters
    wins: dict[tuple[str, int], list[tuple[Fraction, int]]]  # (unit, player id) → values
    # of the wins: mahjong wins, free rounds won, with how many times each
    pairs: dict[tuple[int, int], Fraction]  # (payer, payee) → paid in all (mahjong)
    hands: dict[str, tuple[int, int]]  # unit → (live, undone)


_SEASON: BindParameter[int] = bindparam("season_id")
_COUNTS = select(stat_player.c.unit, stat_player.c.player_id, *(stat_player.c[c] for c in COUNTERS))
_COUNTS = _COUNTS.where(stat_player.c.season_id == _SEASON, stat_player.c.hands > 0)
_WINS = select(stat_win.c.unit, stat_win.c.player_id, stat_win.c.value, stat_win.c.times).where(
    stat_win.c.season_id == _SEASON, stat_win.c.times > 0
)
_PAIRS = select(
    stat_pair.c.payer_id, stat_pair.c.payee_id, stat_pair.c.value, stat_pair.c.times
).where(stat_pair.c.season_id == _SEASON, stat_pair.c.times > 0)
_HANDS = select(stat_hands.c.unit, stat_hands.c.live, stat_hands.c.undone).where(
    stat_hands.c.season_id == _SEASON
)


_MATES = (
    select(stat_mate.c.mate_id, func.sum(stat_mate.c.hands))
    .where(stat_mate.c.season_id.in_(bindparam("seasons", expanding=True)))
    .where(stat_mate.c.player_id == bindparam("player_id"), stat_mate.c.hands > 0)
    .group_by(stat_mate.c.mate_id)
)


def mates(db: Connection, season_ids: Sequence[int], player_id: int) -> dict[int, int]:
    """How many live hands of these seasons the player was at with each other player."""
    params = {"seasons": list(season_ids), "player_id": player_id}
    return {int(mate): int(n) for mate, n in db.execute(_MATES, params)} if season_ids else {}


def season_stats(db: Connection, season_id: int) -> SeasonStats:
    params = {"season_id": season_id}
    counts = {
        (unit, pid): dict(zip(COUNTERS, values, strict=True))
        for unit, pid, *values in db.execute(_COUNTS, params)
    }
    wins: dict[tuple[str, int], list[tuple[Fraction, int]]] = {}
    for unit, pid, value, times in db.execute(_WINS, params):
        wins.setdefault((unit, pid), []).append((value, int(times)))
    pairs: dict[tuple[int, int], Fraction] = {}
    for payer, payee, value, times in db.execute(_PAIRS, params):
        pairs[(payer, payee)] = pairs.get((payer, payee), Fraction(0)) + value * times
    hands = {unit: (int(live), int(undone)) for unit, live, undone in db.execute(_HANDS, params)}
    return SeasonStats(counts, wins, pairs, hands)


_REMINDED = select(reminder.c.player_id).where(
    reminder.c.season_id == bindparam("season_id"),
    reminder.c.hint == bindparam("hint"),
    reminder.c.player_id.in_(bindparam("ids", expanding=True)),
)
_REMIND = Upsert(reminder, lambda stmt: stmt.on_conflict_do_nothing())


def first_reminders(db: Connection, season_id: int, hint: str, ids: Sequence[int]) -> set[int]:
    """Of `ids`, the players not given `hint` yet this season; from now on they have been."""
    if not ids:
        return set()
    params = {"season_id": season_id, "hint": hint, "ids": list(ids)}
    new = set(ids) - set(db.execute(_REMINDED, params).scalars())
    if new:
        rows = [{"season_id": season_id, "hint": hint, "player_id": pid} for pid in sorted(new)]
        db.execute(_REMIND.of(db), rows)
    return new
