"""/me: a member's own record in every group they play in (where a player is linked to their
Telegram account): the balances of each season and the counters /stats counts (one pass over
the group's hands: `service.tally`), added up for all time. Nothing of anyone else beyond what
the group shows its members (/stats' head-to-head), and nothing of a group they do not play in."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from fractions import Fraction

from sqlalchemy.engine import Connection

from scoring.games import Unit, is_points
from scoring.hand_stats import COUNTERS
from service import tally as counted
from service.ledger import player_names
from service.names import clean_title
from service.replies import MeCounts, MeGame, MeGroup, MeView
from storage.gateway import chats, players
from storage.gateway import ledger as book
from storage.models import PlayerRow

MATES_SHOWN = 3  # the people one plays with most
PAIRS_SHOWN = 5  # head-to-head lines per group


def me(db: Connection, user_id: int) -> MeView:
    """The record of the Telegram user `user_id` in each chat where a player is theirs."""
    groups = [_group(db, p) for p in players.players_of_user(db, user_id)]
    found = [g for g in groups if g is not None]
    found.sort(key=lambda g: ((g.title or "").casefold(), g.name.casefold()))
    return MeView(groups=tuple(found))


class _Tally:
    """One game's balance and counters, added up over seasons."""

    def __init__(self) -> None:
        self.net = Fraction(0)
        self.counts = dict.fromkeys(COUNTERS, 0)
        self.biggest: Fraction | None = None

    def add(self, counts: dict[str, int], wins: Iterable[Fraction | int]) -> None:
        for name in COUNTERS:
            self.counts[name] += counts.get(name, 0)
        for value in wins:
            won = Fraction(value)
            self.biggest = won if self.biggest is None else max(self.biggest, won)

    def view(self) -> MeCounts:
        c = self.counts
        return MeCounts(
            net=self.net,
            hands=c["hands"],
            wins=c["wins"],
            self_draws=c["self_draws"],
            deal_ins=c["deal_ins"],
            first_out=c["first_out"],
            results=c["results"],
            biggest=self.biggest,
        )


def _group(db: Connection, mine: PlayerRow) -> MeGroup | None:
    chat = chats.get_chat(db, mine.chat_id)
    current = chats.current_season(db, mine.chat_id)
    if chat is None or current is None:
        return None
    seasons = chats.seasons_of(db, mine.chat_id)
    found = counted.seasons(db, [s.id for s in seasons])
    mates: dict[int, int] = defaultdict(int)
    now: dict[str, _Tally] = defaultdict(_Tally)
    ever: dict[str, _Tally] = defaultdict(_Tally)
    paid: dict[int, Fraction] = defaultdict(Fraction)  # to each other player (mahjong)
    got: dict[int, Fraction] = defaultdict(Fraction)
    for season in seasons:
        tallies = (ever, now) if season.id == current.id else (ever,)
        for b in book.balances(db, season.id):
            if b.player_id == mine.id and is_points(b.unit):  # fees: not a game's points
                for tally in tallies:
                    tally[b.unit].net += b.amount
        kept = found[season.id]
        for (unit, pid), counts in kept.counts.items():
            if pid == mine.id:
                for tally in tallies:
                    tally[unit].add(counts, kept.wins.get((unit, pid), {}))
        for (payer, payee), amount in kept.pairs.items():
            if payer == mine.id:
                paid[payee] += amount
            elif payee == mine.id:
                got[payer] += amount
        for (pid, mate), n in kept.mates.items():
            if pid == mine.id:
                mates[mate] += n
    names = player_names(db, [*mates, *paid, *got])
    top = sorted(mates.items(), key=lambda m: (-m[1], names.get(m[0], "?").casefold()))
    pairs = sorted(
        ((names.get(pid, "?"), paid[pid], got[pid]) for pid in {*paid, *got}),
        key=lambda p: (-abs(p[1] - p[2]), p[0].casefold()),
    )
    games = tuple(
        MeGame(unit, now[unit].view(), ever[unit].view())
        for unit in sorted(ever, key=Unit.order)
        if ever[unit].counts["hands"] or ever[unit].net
    )
    return MeGroup(
        title=clean_title(chat.title),
        name=mine.name,
        season=current.number,
        games=games,
        mates=tuple((names.get(pid, "?"), n) for pid, n in top[:MATES_SHOWN]),
        head_to_head=tuple(pairs[:PAIRS_SHOWN]),
        chat_id=chat.id,
    )
