"""/rating: a skill rating per chat and game, beside the money (off until `/set rating on`).

OpenSkill's Plackett–Luce model with the library's default parameters, one update per sitting:
a table's hands until the next table opens or play pauses for `SITTING_GAP`. The players of a
sitting are placed by their net over its live hands (equal nets share a place) and rated from
those places; the rating shown is the library's ordinal, mu - 3 sigma.

The rating is a view of the ledger, computed when asked from one pass over the chat's hands
(`storage.gateway.records`): nothing of it is kept, so an undo, a merge or a chat move is
followed by the next /rating. openskill is imported only then."""

from __future__ import annotations

import functools
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Connection

from scoring.games import Game, Unit
from scoring.hand_stats import Payment
from service.errors import N_
from service.names import told_apart
from service.replies import Info, RatedSitting, RatingGame, RatingLine, RatingView
from storage.gateway import chats, players, records

if TYPE_CHECKING:
    from openskill.models import PlackettLuce

SITTING_GAP = timedelta(hours=6)
RECENT = 5  # sittings shown under /rating
OFF = N_("The rating is off in this chat. An admin can turn it on with /set rating on.")

Nets = dict[int, Fraction | int]
Kept = tuple[float, float, int]  # a player's (mu, sigma, sittings rated)
Ratings = dict[int, Kept]


@functools.cache
def model() -> PlackettLuce:
    """The library's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300 (imported on first use:
    the bot does not carry openskill until someone asks)."""
    from openskill.models import PlackettLuce

    return PlackettLuce()


def unit_of(game: str, data: Mapping[str, Any]) -> str:
    """The game a hand is rated in: mahjong, 510K (three or four players), each free game."""
    return str(data["unit"]) if game == Game.FREE else Game(game).unit.value


def hand_nets(data: Mapping[str, Any], payments: Iterable[Payment]) -> Nets:
    """Each player's net of a hand: the seated players (0 included) and anyone it pays."""
    nets: Nets = {int(pid): 0 for pid in data.get("seats") or () if pid is not None}
    for p in payments:
        if p.payer is not None:
            nets[p.payer] = nets.get(p.payer, 0) - p.amount
        if p.payee is not None:
            nets[p.payee] = nets.get(p.payee, 0) + p.amount
    return nets


def places(nets: Mapping[int, Fraction | int]) -> list[tuple[int, int]]:
    """(player, place) best net first; equal nets share a place (1, 2, 2, 4)."""
    order = sorted(nets, key=lambda pid: (-nets[pid], pid))
    out: list[tuple[int, int]] = []
    for i, pid in enumerate(order):
        same = out and nets[out[-1][0]] == nets[pid]
        out.append((pid, out[-1][1] if same else i + 1))
    return out


@dataclass
class Sitting:
    """A sitting as /rating counts it: its players' nets and live hands, and everyone's
    ratings after it."""

    unit: str
    table_id: int
    first_seq: int
    first_at: datetime
    last_at: datetime
    hands: int = 0
    nets: dict[int, Fraction | int] = field(default_factory=dict)
    played: dict[int, int] = field(default_factory=dict)  # live hands per player
    ratings: Ratings = field(default_factory=dict)

    def add(self, nets: Mapping[int, Fraction | int]) -> None:
        self.hands += 1
        for pid, net in nets.items():
            self.nets[pid] = self.nets.get(pid, 0) + net
            self.played[pid] = self.played.get(pid, 0) + 1


def sittings(db: Connection, chat_id: int) -> dict[str, list[Sitting]]:
    """The chat's sittings of each game, oldest first, each with everyone's ratings after it:
    one pass over the chat's hands (an undone hand opens or extends a sitting as play, and adds
    nothing to its nets)."""
    by_unit: dict[str, list[Sitting]] = defaultdict(list)
    open_: dict[tuple[str, int], Sitting] = {}
    for hand in records.of_chat(db, chat_id):
        unit, table_id = unit_of(hand.game, hand.data), hand.table_id or 0
        sitting = open_.get((unit, table_id))
        if sitting is None or hand.created_at - sitting.last_at > SITTING_GAP:
            sitting = Sitting(unit, table_id, hand.seq, hand.created_at, hand.created_at)
            open_[(unit, table_id)] = sitting
            by_unit[unit].append(sitting)
        sitting.last_at = max(sitting.last_at, hand.created_at)
        if not hand.undone:
            sitting.add(hand_nets(hand.data, hand.payments))
    for rows in by_unit.values():
        before: Ratings = {}
        for sitting in rows:
            sitting.ratings = before = rate(before, sitting)
    return dict(by_unit)


def rate(before: Ratings, sitting: Sitting) -> Ratings:
    """Everyone's ratings after a sitting: those before it, its players' updated by places."""
    played = _played(sitting)
    after = dict(before)
    if len(played) < 2:
        return after
    ranked = places(played)
    teams = [[_rating(before.get(pid))] for pid, _ in ranked]
    rated = model().rate(teams, ranks=[place for _, place in ranked])
    for (pid, _), [r] in zip(ranked, rated, strict=True):
        after[pid] = (r.mu, r.sigma, before[pid][2] + 1 if pid in before else 1)
    return after


def _rating(kept: Kept | None) -> Any:
    return model().rating() if kept is None else model().rating(mu=kept[0], sigma=kept[1])


def ordinal(kept: Kept | None) -> float:
    """The conservative estimate shown: mu - 3 sigma (a new player's is 0)."""
    return float(_rating(kept).ordinal())


def _played(sitting: Sitting) -> dict[int, Fraction | int]:
    return {pid: net for pid, net in sitting.nets.items() if sitting.played[pid] > 0}


# --- /rating --------------------------------------------------------------------------------


def rating_view(db: Connection, chat_id: int) -> RatingView | Info:
    """Each game's players, best rating first, and its last sittings with the changes."""
    chat = chats.get_chat(db, chat_id)
    if chat is None or not chat.rating:
        return Info(OFF)
    games = [
        _game(db, unit, rows[::-1][: RECENT + 1])  # the last ones, newest first
        for unit, rows in sorted(sittings(db, chat_id).items(), key=lambda i: Unit.order(i[0]))
    ]
    return RatingView(games=tuple(g for g in games if g.lines), tz=chat.tz)


def _game(db: Connection, unit: str, rows: Sequence[Sitting]) -> RatingGame:
    now = rows[0].ratings
    names = told_apart((p.id, p.name) for p in players.players_by_id(db, now).values())

    def name(pid: int) -> str:
        return names.get(pid, "?")

    def change(i: int, pid: int) -> float:
        earlier = rows[i + 1].ratings if i + 1 < len(rows) else {}
        return ordinal(rows[i].ratings[pid]) - ordinal(earlier.get(pid))

    last_played = _played(rows[0])
    lines = sorted(
        (
            RatingLine(
                name(pid),
                ordinal(kept),
                kept[2],
                change(0, pid) if pid in last_played else None,
            )
            for pid, kept in now.items()
        ),
        key=lambda line: (-line.ordinal, line.name.casefold()),
    )
    recent = []
    for i, row in enumerate(rows[:RECENT]):
        played = _played(row)
        if len(played) >= 2:
            recent.append(
                RatedSitting(
                    row.first_at,
                    row.hands,
                    tuple((name(pid), place, change(i, pid)) for pid, place in places(played)),
                )
            )
    return RatingGame(unit, tuple(lines), tuple(recent))
