"""The night's card (/summary) and the season's (sent when /reset archives it): each player's net
per game and in money, the biggest hand, the most wins, who pays whom; a season's also the
longest run of hands won.

The night is the chat's hands and transfers since play last paused for six hours (the same
pause that ends a sitting for /rating), all tables together (`sittings.night_events`): read
from the newest record back, so it costs what the night holds, not the history.
Money is /settle money's (`service.squaring.in_money`): each game's points, squared as the
ledger's pars square them (a 510K hand's score minus its average; a finished marathon's as its
score is shared), times the game's stake, added up per player in whole cents. Wins and the
biggest hand follow /stats' definitions (`scoring.hand_stats`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from fractions import Fraction

from sqlalchemy.engine import Connection

from scoring.games import EventKind, Unit, is_points
from scoring.hand_stats import Payment, hand_stats
from service.errors import N_
from service.ledger import player_names
from service.names import clean_title
from service.rating import hand_nets, unit_of
from service.replies import Card, CardHand, CardLine, Info
from service.sittings import gap_of, night_events
from service.squaring import Money, fee_par, in_money, par_of, par_weights, plan
from service.views import season_for
from storage.gateway import chats, records
from storage.gateway import ledger as book
from storage.gateway.records import Record
from storage.models import ChatRow, EventRow, SeasonRow, TransferRow

MONEY = "money"  # the plan's section in money (a stake is set)


class _Tally:
    """A card's figures, one record at a time, in order."""

    def __init__(self) -> None:
        self.nets: dict[tuple[str, int], Fraction] = defaultdict(Fraction)
        self.squared: dict[tuple[str, int], Fraction] = defaultdict(Fraction)
        self.hands: dict[str, int] = defaultdict(int)
        self.played: dict[int, int] = defaultdict(int)
        self.wins: dict[int, int] = defaultdict(int)
        self.biggest: dict[str, tuple[Fraction, int, int | None]] = {}  # unit → (net, who, no)
        self.run: dict[int, int] = defaultdict(int)
        self.best_run: dict[int, int] = defaultdict(int)
        self.start: datetime | None = None
        self.end: datetime | None = None

    def add(self, r: Record) -> None:
        self.start = r.created_at if self.start is None else min(self.start, r.created_at)
        self.end = r.created_at if self.end is None else max(self.end, r.created_at)
        unit = r.unit or unit_of(r.game, r.data)
        nets = hand_nets(r.data, r.payments)
        for pid, net in nets.items():
            self.nets[(unit, pid)] += net
        # squared as the ledger's pars square it (`service.squaring`): /settle money's figures
        total = sum((p.amount for p in r.payments if p.payer is None), Fraction(0)) - sum(
            (p.amount for p in r.payments if p.payee is None), Fraction(0)
        )
        seats = [int(pid) for pid in r.data.get("seats") or () if isinstance(pid, int)]
        if r.kind == EventKind.FEE:  # what the house is owed is not settled between players
            par = fee_par(r.data)
        else:
            par = par_of(Fraction(total), seats, par_weights(r.data))
        for pid in nets.keys() | par.keys():
            self.squared[(unit, pid)] += nets.get(pid, 0) - par.get(pid, 0)
        if r.kind != EventKind.HAND:
            return
        tally = hand_stats(r.game, r.data, r.payments)
        people = tally.people or frozenset(nets)
        self.hands[unit] += 1
        won = {pid for pid, c in tally.counts.items() if c["wins"]}
        for pid in people:
            self.played[pid] += 1
        for pid in won:
            self.wins[pid] += 1
        for pid, value in tally.wins:
            if unit not in self.biggest or value > self.biggest[unit][0]:
                self.biggest[unit] = (Fraction(value), pid, r.hand_no)
        if unit == "510k" and r.data.get("result") is None:
            return  # a marathon's hand before its end: nobody has won yet
        for pid in people:
            self.run[pid] = self.run[pid] + 1 if pid in won else 0
            self.best_run[pid] = max(self.best_run[pid], self.run[pid])


def _card(
    db: Connection, chat: ChatRow, tally: _Tally, season: SeasonRow | None, streak: bool
) -> Card:
    assert tally.start is not None and tally.end is not None
    people = {pid for _, pid in tally.nets} | set(tally.played)
    names = player_names(db, list(people))
    names.update({pid: "?" for pid in people if pid not in names})
    units = sorted({unit for unit, _ in tally.nets} | set(tally.hands), key=Unit.order)
    by_unit: dict[str, dict[int, Fraction]] = defaultdict(dict)
    for (unit, pid), amount in tally.squared.items():
        by_unit[unit][pid] = amount
    money = in_money(chat, by_unit, names)
    main = max(units, key=lambda u: (tally.hands.get(u, 0), -units.index(u)))

    def order(pid: int) -> tuple[Fraction, Fraction, str]:
        cash = money.cents.get(pid, Fraction(0))
        return -cash, -tally.nets.get((main, pid), Fraction(0)), names[pid].casefold()

    lines = tuple(
        CardLine(
            name=names[pid],
            nets=tuple((u, tally.nets[(u, pid)]) for u in units if (u, pid) in tally.nets),
            money=money.cents.get(pid, Fraction(0)) if money.games else None,
            hands=tally.played.get(pid, 0),
            wins=tally.wins.get(pid, 0),
        )
        for pid in sorted(people, key=order)
    )
    plans: tuple[tuple[str, tuple[tuple[str, str, Fraction], ...]], ...]
    if money.games:  # in money, as /settle money counts it
        plans = ((MONEY, plan({p: a for p, a in money.cents.items() if a}, names)),)
    else:
        plans = tuple((u, plan(by_unit[u], names)) for u in units if u in by_unit)
    most = max(tally.wins.values(), default=0)
    best_run = max(tally.best_run.values(), default=0)
    return Card(
        title=clean_title(chat.title),
        season=season.number if season is not None else None,
        start=tally.start,
        end=tally.end,
        tz=chat.tz,
        units=tuple(units),
        hands=tuple((u, tally.hands[u]) for u in units if tally.hands.get(u)),
        lines=lines,
        biggest=tuple(
            CardHand(names[pid], u, value, no)
            for u, (value, pid, no) in sorted(tally.biggest.items(), key=lambda i: Unit.order(i[0]))
            if value > 0
        ),
        most_wins=_best(tally.wins, most, names),
        plan=tuple((u, p) for u, p in plans if p),
        stake=_one_stake(money),
        games=money.games,
        left_out=money.left_out,
        rounded=money.rounded,
        streak=_best(tally.best_run, best_run, names) if streak and best_run > 1 else (),
    )


def _one_stake(money: Money) -> Fraction | None:
    """The stake every game counted is played at, if they share one (None: none, or each
    game its own: the card says so)."""
    stakes = {stake for unit, stake in money.games if is_points(unit)}
    return stakes.pop() if len(stakes) == 1 else None


def _best(
    counts: Mapping[int, int], top: int, names: Mapping[int, str]
) -> tuple[tuple[str, int], ...]:
    if top <= 0:
        return ()
    return tuple(
        sorted(
            ((names[p], n) for p, n in counts.items() if n == top), key=lambda x: x[0].casefold()
        )
    )


# --- the night: /summary ---------------------------------------------------------------------


def night(db: Connection, chat_id: int, before: int | None = None) -> Card | Info:
    """The card of the chat's last night (its hands since play last paused for the idle gap,
    six hours unless `/set idle` says otherwise); `before`: the night that ended before the
    chat's record number `before` (a sitting a table nobody closed ended)."""
    chat = chats.get_chat(db, chat_id)
    season = chats.current_season(db, chat_id)
    if chat is None or season is None:
        return Info(N_("Nothing has been recorded in this chat yet."))
    since = chat.sitting_from if before is None else 0  # this sitting's, or the one before
    events = night_events(db, season.id, before=before, since=since, gap=gap_of(chat))
    if not events and since:  # a new sitting, nothing played yet: the night before it
        events = night_events(db, season.id, before=since, gap=gap_of(chat))
    live = [e for e in reversed(events) if e.undone_by is None]
    if not live:
        return Info(N_("No hands recorded yet."))
    by_event = book.transfers_of(db, [e.id for e in live])
    tally = _Tally()
    for e in live:
        tally.add(_record(e, by_event.get(e.id, [])))
    return _card(db, chat, tally, None, streak=False)


def _record(e: EventRow, transfers: Sequence[TransferRow]) -> Record:
    payments = [Payment(t.payer_id, t.payee_id, t.amount, t.reason) for t in transfers]
    unit = transfers[0].unit if transfers else None
    return Record(
        e.id,
        e.season_id,
        e.table_id,
        e.seq,
        e.kind,
        e.game,
        e.hand_no,
        e.created_at,
        e.undone_by is not None,
        e.data,
        unit,
        payments,
    )


# --- the season: after /reset ------------------------------------------------------------------


def season_card(db: Connection, chat_id: int, number: int | None) -> Card | Info:
    """A season's card: its totals, the most hands won, the biggest hand, the longest run of
    hands won in a row (one pass over the season's ledger: it is drawn once, when archived)."""
    season = season_for(db, chat_id, number)
    chat = chats.get_chat(db, chat_id)
    assert chat is not None
    tally = _Tally()
    kinds = (*records.NUMBERED, EventKind.FEE.value)
    for record in records.of_seasons(db, [season.id], kinds):
        if not record.undone:
            tally.add(record)
    if tally.start is None:
        return Info(N_("No hands recorded yet."))
    return _card(db, chat, tally, season, streak=True)
