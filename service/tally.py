"""A season's statistics, computed when asked from one streamed pass over its hands
(`storage.gateway.records`): what /stats and /me show besides the nets, which are the balances.
`scoring.hand_stats` defines what one hand adds; an undone hand adds nothing but its count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction

from sqlalchemy.engine import Connection

from scoring.hand_stats import hand_stats, unit_of
from storage.gateway import records
from storage.gateway.records import Record


@dataclass
class SeasonTally:
    """The live hands' tallies added up."""

    wins: dict[tuple[str, int], Counter[Fraction | int]] = field(default_factory=dict)  # values
    pairs: dict[tuple[int, int], Fraction | int] = field(default_factory=dict)  # paid (mahjong)
    hands: dict[str, list[int]] = field(default_factory=dict)  # unit → [live, undone]
    tables: Counter[frozenset[int]] = field(default_factory=Counter)  # who played, how often
    _by_unit: dict[str, dict[int, dict[str, int]]] = field(default_factory=dict)

    @property
    def counts(self) -> dict[tuple[str, int], dict[str, int]]:
        """(unit, player) → the counters of their live hands."""
        return {(u, pid): c for u, by in self._by_unit.items() for pid, c in by.items()}

    def add(self, record: Record) -> None:
        unit = unit_of(record.game, record.data)
        counted = self.hands.setdefault(unit, [0, 0])
        if record.undone:
            counted[1] += 1
            return
        counted[0] += 1
        counts = self._by_unit.setdefault(unit, {})  # the hand's counters added right in
        tally = hand_stats(record.game, record.data, record.payments, counts)
        for pid, value in tally.wins:
            self.wins.setdefault((unit, pid), Counter())[value] += 1
        for pair, paid in tally.pairs.items():
            self.pairs[pair] = self.pairs.get(pair, 0) + paid
        self.tables[tally.people] += 1  # mostly the same few people: counted by group

    @property
    def mates(self) -> Counter[tuple[int, int]]:
        """(player, mate) → the live hands they were at together."""
        out: Counter[tuple[int, int]] = Counter()
        for people, n in self.tables.items():
            for a in people:
                for b in people:
                    if a != b:
                        out[(a, b)] += n
        return out

    def live(self, unit: str) -> int:
        """The unit's live hands."""
        return self.hands.get(unit, [0, 0])[0]

    @property
    def undone(self) -> int:
        return sum(undone for _, undone in self.hands.values())


def season(db: Connection, season_id: int) -> SeasonTally:
    """The season's tally, from one pass over its hands."""
    return seasons(db, [season_id])[season_id]


def seasons(db: Connection, season_ids: Iterable[int]) -> dict[int, SeasonTally]:
    """Each season's tally, from one pass over their hands."""
    wanted = list(season_ids)
    out = {season_id: SeasonTally() for season_id in wanted}
    for record in records.of_seasons(db, wanted):
        out[record.season_id].add(record)
    return out
