"""Random evenings of people coming and going (issue 26): mahjong hands and kongs, a 510K
marathon of four, substitutions (new guests among them, a free seat filled), claims by members
who then play as 我, renames, merges (a typo'd guest into the real player), transfers and
undos, corrections of the last or an older record (/edit, undone or not: issue 38), and the
table's last result typed again by another member (the two-minute rule: it is
asked about; Record again, pressed twice, records it once; no answer (or No, which only takes
the question away) records nothing).
Whatever happened, every balance is the sum of the live records' transfers, the pars add up to
the balances, and /settle squares exactly balance − par per game, and in money."""

from __future__ import annotations

import itertools
from collections import defaultdict
from dataclasses import dataclass, field
from fractions import Fraction

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import text
from sqlalchemy.engine import Engine

from scoring.games import EventKind
from service.errors import ServiceError
from service.replies import (
    Edited,
    HistoryView,
    MoneyView,
    NameAsk,
    Recorded,
    RepeatAsk,
    Reply,
    SettleView,
)
from service.requests import Again, Undo
from tests.integration.helpers import Chat
from tests.integration.test_settle_squared import nets, reports

HOST = "Alice"  # a member and admin
SEATED = ("Alice", "Bruno", "Chen", "Dmitri")
#: Names none of which is one letter from another (a near name is asked about: see "near").
NEWCOMERS = ("Emma", "Farid", "Giulia", "Hiroshi", "Ingrid", "Jamal")
RENAMES = ("Quentin", "Rosalind", "Tobias", "Ulrike", "Viktor", "Wanjiru")
MEMBERS = ("Mika", "Nora")  # members who claim a guest and play as 我
_chats = itertools.count(-9_270_000_000_000)

STEPS = [
    st.tuples(st.just("hu"), st.tuples(st.integers(1, 4), st.integers(0, 4))),
    st.tuples(st.just("gang"), st.integers(1, 4)),
    st.tuples(st.just("r"), reports(4)),
    st.tuples(st.just("sub"), st.tuples(st.integers(1, 4), st.integers(0, 5))),
    st.tuples(st.just("near"), st.tuples(st.integers(1, 4), st.booleans())),
    st.tuples(st.just("leave"), st.integers(0, 5)),
    st.tuples(st.just("claim"), st.tuples(st.integers(0, 1), st.integers(1, 4))),
    st.tuples(st.just("me"), st.integers(0, 1)),
    st.tuples(st.just("rename"), st.integers(1, 4)),
    st.tuples(st.just("merge"), st.integers(0, 20)),
    st.tuples(st.just("pay"), st.tuples(st.integers(1, 4), st.integers(1, 4))),
    st.tuples(st.just("undo"), st.none()),
    st.tuples(st.just("new"), st.booleans()),
    st.tuples(st.just("repeat"), st.booleans()),  # answered Record again, or not (No: the same)
    # issue 38: the last or an older record corrected (/edit), the correction undone or not
    st.tuples(
        st.just("edit"),
        st.tuples(st.integers(0, 3), st.integers(1, 4), st.integers(0, 4), st.booleans()),
    ),
]
RECORDS = ("hu", "r", "pay")  # steps whose record a repeat may type again (seats by number)


@dataclass
class Evening:
    chat: Chat
    game: str = "mahjong"
    replaced: list[tuple[str, str]] = field(default_factory=list)  # (newcomer, who left)
    fresh: list[str] = field(default_factory=lambda: [*NEWCOMERS, *RENAMES])
    known: set[str] = field(default_factory=set)  # everyone seated so far
    last: str | None = None  # the table's last record, as typed, while nothing came after it

    def say(self, who: str, command: str) -> Reply | None:
        """The reply, None when refused (a refusal changes nothing)."""
        try:
            reply = self.chat.say(who, command)
        except ServiceError:
            return None
        if isinstance(reply, Recorded) and reply.view.kind != EventKind.KONG:
            self.last = command
        return reply

    def live_records(self) -> int:
        with self.chat.service.engine.connect() as conn:
            found = conn.execute(
                text(
                    "SELECT count(*) FROM event WHERE chat_id = :c AND undone_by IS NULL"
                    " AND kind IN (:hand, :pay)"
                ),
                {"c": self.chat.chat_id, "hand": EventKind.HAND, "pay": EventKind.PAY},
            )
            return int(found.scalar_one())

    def repeat(self, again: bool) -> None:
        """The last record typed again by another member: asked about, nothing recorded; Record
        again (pressed twice) records it once; no answer, nothing."""
        if self.last is None:  # something to repeat: a transfer
            self.act("pay", (1, 2))
        if self.last is None:  # refused (a seat is free)
            return
        before = self.live_records()
        self.chat.ask_repeats = True
        try:
            asked = self.chat.say(MEMBERS[1], self.last)
            assert isinstance(asked, RepeatAsk), (self.last, asked)
            assert self.live_records() == before
            for _ in range(2 if again else 0):  # one button's presses: recorded once
                button = Again(asked.view.event_id)
                self.chat.press(MEMBERS[1], button, update_id=-asked.view.event_id)
        finally:
            self.chat.ask_repeats = False
        assert self.live_records() == before + again

    def seats(self) -> list[str | None]:
        view = self.chat.say("viewer", "/players")
        return list(getattr(view, "seats", ()))

    def new_name(self) -> str | None:
        return self.fresh.pop(0) if self.fresh else None

    def step(self, kind: str, arg: object) -> None:
        if kind == "repeat" and isinstance(arg, bool):
            self.repeat(arg)
            return
        self.act(kind, arg)
        if kind not in RECORDS:  # a seat, a name or the table changed, or 我 typed: no repeat
            self.last = None

    def act(self, kind: str, arg: object) -> None:
        seats = self.seats()
        self.known |= {name for name in seats if name}
        if kind == "hu" and isinstance(arg, tuple) and self.game == "mahjong":
            winner, source = arg
            how = "zimo" if source in (0, winner) else f"pao {source}"
            self.say(HOST, f"/hu {winner} {how}")
        elif kind == "gang" and isinstance(arg, int) and self.game == "mahjong":
            self.say(HOST, f"/gang {arg} an")
        elif kind == "r" and isinstance(arg, tuple) and self.game == "510k":
            table, order, held = arg
            entries = " ".join(
                f"{s + 1}={t}" + (f"/{held[s]}" if held[s] else "") for s, t in enumerate(table)
            )
            self.say(HOST, f"/r {entries} out {' '.join(str(s + 1) for s in order)}")
        elif kind == "sub" and isinstance(arg, tuple):
            seat, pick = arg
            known = [n for n in (*SEATED, *NEWCOMERS) if n not in seats]
            name = known[pick % len(known)] if known and pick < 3 else self.new_name()
            leaving = seats[seat - 1] if seat <= len(seats) else None
            if name and self.say(HOST, f"/sub {seat} {name}") is not None and leaving:
                self.replaced.append((name, leaving))
        elif kind == "near" and isinstance(arg, tuple):  # a typo of a known player's name
            seat, meant = arg
            leaving = seats[seat - 1] if seat <= len(seats) else None
            away = sorted(self.known - set(seats))
            if leaving and away:
                typo = away[0][:-1] + ("x" if away[0][-1] != "x" else "y")
                ask = self.say(HOST, f"/sub {seat} {typo}")
                answered = isinstance(ask, NameAsk) and self.press(ask.known if meant else ask.new)
                if answered and not meant:  # a new player after all: merged later, maybe
                    self.replaced.append((typo, leaving))
        elif kind == "leave" and isinstance(arg, int):
            free = self.new_name()
            who = next((m for m in MEMBERS if m in seats), None)
            if who is not None and free and self.say(who, "/leave") is not None:
                self.say(HOST, f"/sub {seats.index(who) + 1} {free}")
        elif kind == "claim" and isinstance(arg, tuple):
            member, seat = arg
            guest = seats[seat - 1] if seat <= len(seats) else None
            if guest and guest != HOST:
                self.say(MEMBERS[member], f"/iam {guest}")
        elif kind == "me" and isinstance(arg, int) and self.game == "mahjong":
            self.say(MEMBERS[arg], "/hu 我 自摸")
        elif kind == "rename" and isinstance(arg, int) and arg <= len(seats):
            old, new = seats[arg - 1], self.new_name()
            if old and new and self.say(HOST, f"/rename {old} {new}") is not None:
                self.replaced = [
                    (new if a == old else a, new if b == old else b) for a, b in self.replaced
                ]
        elif kind == "merge" and isinstance(arg, int) and self.replaced:
            gone, kept = self.replaced[arg % len(self.replaced)]
            if self.say(HOST, f"/merge {gone} {kept}") is not None:
                self.replaced = [(a, b) for a, b in self.replaced if gone not in (a, b)]
        elif kind == "pay" and isinstance(arg, tuple) and arg[0] != arg[1]:
            self.say(HOST, f"/pay {arg[0]} {arg[1]} 3")
        elif kind == "undo":
            self.say(HOST, "/undo")
        elif kind == "edit" and isinstance(arg, tuple):
            self.edit(*arg)
        elif kind == "new":
            self.game = "510k" if arg else "mahjong"
            self.say(HOST, "/new 510k marathon confirm" if arg else "/new mahjong confirm")
            if len([s for s in self.seats() if s]) < 4:
                self.say(HOST, "/seats " + " ".join(SEATED))

    def edit(self, back: int, winner: int, source: int, undo: bool) -> None:
        """A live record `back` records before the last corrected to another hand or transfer
        of its kind: every version stays readable (a mahjong one zero-sum); then maybe the
        correction undone (a bare /undo: the table's last change)."""
        history = self.chat.say("viewer", "/history 100")
        assert isinstance(history, HistoryView)
        hands = [h for h in history.hands if not h.undone and h.hand_no is not None]
        if not hands:
            return
        hand = hands[-1 - back % len(hands)]
        if hand.kind == EventKind.PAY:
            command = f"/pay {winner} {winner % 4 + 1} 4"
        elif hand.game == "mahjong":
            command = f"/hu {winner} " + ("zimo" if source in (0, winner) else f"pao {source}")
        elif hand.game == "510k":
            command = "/r 1=30 2=20 3=40 4=10 out 1 3"
        else:
            return
        reply = self.say(HOST, f"/edit {hand.hand_no} {command}")
        if not isinstance(reply, Edited):
            return
        shown = self.chat.say("viewer", f"/history #{hand.hand_no}")
        assert isinstance(shown, HistoryView) and len(shown.versions) >= 2
        for version in shown.versions:
            if version.view.game == "mahjong":
                assert sum(amount for _, amount in version.view.net) == 0
        if undo:  # by the correction's Undo button
            back_ = self.chat.press(HOST, Undo(event_id=reply.edit_id))
            assert isinstance(back_, Edited) and back_.undone, back_

    def press(self, request: object) -> bool:
        try:
            self.chat.press(HOST, request)  # type: ignore[arg-type]
        except ServiceError:
            return False
        return True


def ledger(engine: Engine, chat_id: int) -> tuple[dict[tuple[str, int], Fraction], ...]:
    """Per (unit, player id) in the open season: the balance rows' amounts and pars, and the
    sums of the live records' transfers."""
    season = "SELECT id FROM season WHERE chat_id = :chat AND archived_at IS NULL"
    with engine.connect() as conn:
        rows = conn.execute(
            text(f"SELECT unit, player_id, amount, par FROM balance WHERE season_id IN ({season})"),
            {"chat": chat_id},
        ).all()
        moves = conn.execute(
            text(
                "SELECT t.unit, t.payer_id, t.payee_id, t.amount FROM transfer t"
                " JOIN event e ON e.id = t.event_id"
                f" WHERE e.undone_by IS NULL AND e.season_id IN ({season})"
            ),
            {"chat": chat_id},
        ).all()
    amounts = {(u, p): Fraction(a) for u, p, a, _ in rows}
    pars = {(u, p): Fraction(par) for u, p, _, par in rows}
    live: dict[tuple[str, int], Fraction] = defaultdict(Fraction)
    for unit, payer, payee, amount in moves:
        if payer is not None:
            live[(unit, payer)] -= Fraction(amount)
        if payee is not None:
            live[(unit, payee)] += Fraction(amount)
    return amounts, pars, dict(live)


def names(engine: Engine, chat_id: int) -> dict[int, str]:
    with engine.connect() as conn:
        rows = conn.execute(text("SELECT id, name FROM player WHERE chat_id = :c"), {"c": chat_id})
        return {pid: name for pid, name in rows}


@settings(
    max_examples=10,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(st.one_of(*STEPS), min_size=1, max_size=24))
def test_people_come_and_go_and_the_ledger_stays_whole(
    engine: Engine, steps: list[tuple[str, object]]
) -> None:
    chat = Chat(engine, next(_chats), admins=(HOST,))
    evening = Evening(chat)
    chat.seat("mahjong", *SEATED)
    for kind, arg in steps:
        evening.step(kind, arg)
    amounts, pars, live = ledger(engine, chat.chat_id)
    # Every balance is its live records' sum (a merged player's rows are gone with him).
    assert {k: v for k, v in amounts.items() if v} == {k: v for k, v in live.items() if v}
    for unit in {u for u, _ in amounts}:
        total = sum((v for (u, _), v in amounts.items() if u == unit), Fraction(0))
        assert sum((v for (u, _), v in pars.items() if u == unit), Fraction(0)) == total
    # /settle squares balance − par per game; /settle money adds up to zero, in cents.
    named = names(engine, chat.chat_id)
    settle = chat.say(HOST, "/settle")
    assert isinstance(settle, SettleView)
    for unit, plan in settle.sections:
        squared = {
            named[p]: amounts[(u, p)] - pars[(u, p)]
            for u, p in amounts
            if u == unit and amounts[(u, p)] != pars[(u, p)]
        }
        assert nets(plan) == squared
    chat.say(HOST, "/set stake 0.5")
    money = chat.say(HOST, "/settle money")
    if isinstance(money, MoneyView):
        paid = nets(money.transfers)
        assert sum(paid.values(), Fraction(0)) == 0
        assert all((v * 100).denominator == 1 for v in paid.values())
