"""/rating: a skill rating per chat and game, beside the money (off until `/set rating on`).

OpenSkill's Plackett–Luce model with the library's default parameters, one update per sitting:
a table's hands until the next table opens or play pauses for `SITTING_GAP`. The players of a
sitting are placed by their net over its live hands (equal nets share a place) and rated from
those places; the rating shown is the library's ordinal, mu - 3 sigma.

The rating is a view of the ledger: each sitting's nets and everyone's ratings after it are kept
(`storage.gateway.ratings`), a recorded hand adds to its sitting's nets and an undo takes them
away, and the ratings are computed again from that sitting on; `rebuild` makes the whole view
anew from the ledger (turning the rating on, a chat move)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from fractions import Fraction
from typing import Any

from openskill.models import PlackettLuce
from sqlalchemy.engine import Connection

from scoring.games import EventKind, Game, Unit
from scoring.hand_stats import Payment
from service.errors import N_
from service.replies import Info, RatedSitting, RatingGame, RatingLine, RatingView
from storage.gateway import chats, players, ratings, records
from storage.gateway.ledger import NEWEST
from storage.models import EventRow, RatingSittingRow, TransferRow

SITTING_GAP = timedelta(hours=6)
MODEL = PlackettLuce()  # the library's defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300
RECENT = 5  # sittings shown under /rating
OFF = N_("The rating is off in this chat. An admin can turn it on with /set rating on.")

Nets = dict[int, Fraction | int]
Ratings = dict[str, Any]  # player id (text) → [mu, sigma, sittings]


def unit_of(game: str, data: Mapping[str, Any]) -> str:
    """The game a hand is rated in: mahjong, 510K (three or four players), each free game."""
    return str(data["unit"]) if game == Game.FREE else Game(game).unit.value


def hand_nets(data: Mapping[str, Any], transfers: Iterable[TransferRow | Any]) -> Nets:
    """Each player's net of a hand: the seated players (0 included) and anyone it pays."""
    nets: Nets = {int(pid): 0 for pid in data.get("seats") or () if pid is not None}
    for t in transfers:
        if t.payer_id is not None:
            nets[t.payer_id] = nets.get(t.payer_id, 0) - t.amount
        if t.payee_id is not None:
            nets[t.payee_id] = nets.get(t.payee_id, 0) + t.amount
    return nets


def places(nets: Mapping[int, Fraction | int]) -> list[tuple[int, int]]:
    """(player, place) best net first; equal nets share a place (1, 2, 2, 4)."""
    order = sorted(nets, key=lambda pid: (-nets[pid], pid))
    out: list[tuple[int, int]] = []
    for i, pid in enumerate(order):
        same = out and nets[out[-1][0]] == nets[pid]
        out.append((pid, out[-1][1] if same else i + 1))
    return out


def rate(before: Ratings, sitting: RatingSittingRow) -> Ratings:
    """Everyone's ratings after a sitting: those before it, its players' updated by places."""
    played = {
        int(pid): Fraction(net) for pid, (net, hands) in sitting.nets.items() if int(hands) > 0
    }
    after = dict(before)
    if len(played) < 2:
        return after
    ranked = places(played)
    teams = [[_rating(before.get(str(pid)))] for pid, _ in ranked]
    rated = MODEL.rate(teams, ranks=[place for _, place in ranked])
    for (pid, _), [r] in zip(ranked, rated, strict=True):
        sittings = int(before[str(pid)][2]) if str(pid) in before else 0
        after[str(pid)] = [r.mu, r.sigma, sittings + 1]
    return after


def _rating(kept: Sequence[Any] | None) -> Any:
    return MODEL.rating() if kept is None else MODEL.rating(mu=kept[0], sigma=kept[1])


def ordinal(kept: Sequence[Any] | None) -> float:
    """The conservative estimate shown: mu - 3 sigma (a new player's is 0)."""
    return float(_rating(kept).ordinal())


# --- the view kept as the ledger changes ---------------------------------------------------


def counted(
    db: Connection, chat_id: int, event: EventRow, transfers: Sequence[TransferRow]
) -> None:
    """A hand just recorded: into its table's sitting (or a new one), ratings from there on."""
    unit = unit_of(event.game, event.data)
    table_id = event.table_id or 0
    sitting = ratings.holding(db, chat_id, unit, table_id, NEWEST)
    if sitting is None or event.created_at - sitting.last_at > SITTING_GAP:
        sitting = _new_sitting(chat_id, unit, table_id, event.seq, event.created_at)
    _add(sitting, hand_nets(event.data, transfers), 1)
    sitting.last_at = max(sitting.last_at, event.created_at)
    _replay(db, sitting)


def uncounted(
    db: Connection, chat_id: int, event: EventRow, transfers: Sequence[TransferRow]
) -> None:
    """A hand undone: out of its sitting, and every rating after it computed again."""
    unit = unit_of(event.game, event.data)
    sitting = ratings.holding(db, chat_id, unit, event.table_id or 0, event.seq)
    if sitting is not None:
        _add(sitting, hand_nets(event.data, transfers), -1)
        _replay(db, sitting)


def _new_sitting(
    chat_id: int, unit: str, table_id: int, seq: int, at: datetime
) -> RatingSittingRow:
    return RatingSittingRow(
        chat_id=chat_id,
        unit=unit,
        first_seq=seq,
        table_id=table_id,
        first_at=at,
        last_at=at,
        hands=0,
        nets={},
        ratings={},
    )


def _add(sitting: RatingSittingRow, nets: Nets, sign: int) -> None:
    kept = dict(sitting.nets)
    for pid, net in nets.items():
        total, hands = kept.get(str(pid), ("0", 0))
        kept[str(pid)] = [str(Fraction(total) + sign * net), int(hands) + sign]
        if kept[str(pid)][1] == 0:  # none of their hands is live: not in the sitting
            del kept[str(pid)]
    sitting.nets = kept
    sitting.hands += sign


def _replay(db: Connection, changed: RatingSittingRow) -> None:
    """The changed sitting and those after it rated again, in order, and written."""
    rows = ratings.sittings_from(db, changed.chat_id, changed.unit, changed.first_seq)
    rows = [changed, *(r for r in rows if r.first_seq != changed.first_seq)]
    before = ratings.ratings_before(db, changed.chat_id, changed.unit, changed.first_seq)
    for row in rows:
        row.ratings = before = rate(before, row)
    ratings.save(db, rows)


def rebuild(db: Connection, chat_id: int) -> None:
    """The chat's whole view made anew from its ledger, hand by hand in order (one pass)."""
    ratings.drop(db, chat_id)
    open_: dict[tuple[str, int], RatingSittingRow] = {}
    done: list[RatingSittingRow] = []
    hand: Any = None
    transfers: list[Any] = []

    def close() -> None:
        if hand is None:
            return
        unit, table_id = unit_of(hand.game, hand.data), hand.table_id or 0
        sitting = open_.get((unit, table_id))
        if sitting is None or hand.created_at - sitting.last_at > SITTING_GAP:
            sitting = open_[(unit, table_id)] = _new_sitting(
                chat_id, unit, table_id, hand.seq, hand.created_at
            )
            done.append(sitting)
        sitting.last_at = max(sitting.last_at, hand.created_at)
        if hand.undone_by is None:
            _add(sitting, hand_nets(hand.data, transfers), 1)

    for row in ratings.stream_records(db, chat_id):
        if row.kind != EventKind.HAND:
            continue
        if hand is None or row.id != hand.id:
            close()
            hand, transfers = row, []
        if row.amount is not None:
            transfers.append(row)
    close()
    before: dict[str, Ratings] = {}
    for sitting in sorted(done, key=lambda s: (s.unit, s.first_seq)):
        sitting.ratings = before[sitting.unit] = rate(before.get(sitting.unit, {}), sitting)
    ratings.save(db, done)


# --- the view computed when asked: one pass over the chat's hands ---------------------------


@dataclass
class Sitting:
    """A sitting as /rating counts it: its players' nets and live hands, and everyone's
    ratings after it (player id → (mu, sigma, sittings))."""

    unit: str
    table_id: int
    first_seq: int
    first_at: datetime
    last_at: datetime
    hands: int = 0
    nets: dict[int, Fraction | int] = field(default_factory=dict)
    played: dict[int, int] = field(default_factory=dict)  # live hands per player
    ratings: dict[int, tuple[float, float, int]] = field(default_factory=dict)

    def add(self, nets: Mapping[int, Fraction | int]) -> None:
        self.hands += 1
        for pid, net in nets.items():
            self.nets[pid] = self.nets.get(pid, 0) + net
            self.played[pid] = self.played.get(pid, 0) + 1


def nets_of(data: Mapping[str, Any], payments: Iterable[Payment]) -> Nets:
    """Each player's net of a hand: the seated players (0 included) and anyone it pays."""
    nets: Nets = {int(pid): 0 for pid in data.get("seats") or () if pid is not None}
    for p in payments:
        if p.payer is not None:
            nets[p.payer] = nets.get(p.payer, 0) - p.amount
        if p.payee is not None:
            nets[p.payee] = nets.get(p.payee, 0) + p.amount
    return nets


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
            sitting.add(nets_of(hand.data, hand.payments))
    for rows in by_unit.values():
        before: dict[int, tuple[float, float, int]] = {}
        for sitting in rows:
            sitting.ratings = before = rated(before, sitting)
    return dict(by_unit)


def rated(
    before: Mapping[int, tuple[float, float, int]], sitting: Sitting
) -> dict[int, tuple[float, float, int]]:
    """Everyone's ratings after a sitting: those before it, its players' updated by places."""
    played = {pid: net for pid, net in sitting.nets.items() if sitting.played[pid] > 0}
    after = dict(before)
    if len(played) < 2:
        return after
    ranked = places(played)
    teams = [[_rating(before.get(pid))] for pid, _ in ranked]
    for (pid, _), [r] in zip(ranked, MODEL.rate(teams, ranks=[p for _, p in ranked]), strict=True):
        after[pid] = (r.mu, r.sigma, before[pid][2] + 1 if pid in before else 1)
    return after


# --- /rating --------------------------------------------------------------------------------


def rating_view(db: Connection, chat_id: int) -> RatingView | Info:
    """Each game's players, best rating first, and its last sittings with the changes."""
    chat = chats.get_chat(db, chat_id)
    if chat is None or not chat.rating:
        return Info(OFF)
    games = []
    for unit in sorted(ratings.units(db, chat_id), key=Unit.order):
        rows = ratings.latest(db, chat_id, unit, RECENT + 1)
        if rows:
            games.append(_game(db, unit, rows))
    return RatingView(games=tuple(g for g in games if g.lines), tz=chat.tz)


def _game(db: Connection, unit: str, rows: list[RatingSittingRow]) -> RatingGame:
    now = rows[0].ratings
    names = {p.id: p.name for p in players.players_by_id(db, [int(pid) for pid in now]).values()}

    def name(pid: str) -> str:
        return names.get(int(pid), "?")

    def change(i: int, pid: str) -> float:
        earlier = rows[i + 1].ratings if i + 1 < len(rows) else {}
        return ordinal(rows[i].ratings[pid]) - ordinal(earlier.get(pid))

    last_played = _played(rows[0])
    lines = sorted(
        (
            RatingLine(
                name(pid),
                ordinal(kept),
                int(kept[2]),
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
            ranked = places({int(pid): net for pid, net in played.items()})
            recent.append(
                RatedSitting(
                    row.first_at,
                    row.hands,
                    tuple((name(str(pid)), place, change(i, str(pid))) for pid, place in ranked),
                )
            )
    return RatingGame(unit, tuple(lines), tuple(recent))


def _played(row: RatingSittingRow) -> dict[str, Fraction]:
    return {pid: Fraction(net) for pid, (net, hands) in row.nets.items() if int(hands) > 0}
