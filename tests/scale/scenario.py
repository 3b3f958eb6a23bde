"""Scripted game nights for the scale tests, and the ledger each one must leave behind.

A ``ChatScript`` is one chat's commands in order, as people type them, together with what the
database must hold afterwards: every event (seq, kind, hand number, text, and which undo
reverted it), which update ids were claimed (and the event each one recorded) and every seated
player's balance. The expectation is computed here without the service: each mahjong hand is
built as ``scoring`` dataclasses and settled with ``scoring.settle_hand``, each 510K report is
scored with ``scoring.score_hand``, and a small model of the table follows the pending kongs, the
dealer and ``/undo`` the way docs/commands.md describes them.

Every hand command is parsed with ``bot.commands.parsing.parse`` once while the script is built and
compared with the clause the script meant, so a script can only test what it says it tests.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from sqlalchemy.engine import Engine
from sqlmodel import Session, col, select

from bot.commands.parsing import parse
from scoring import (
    Kong,
    KongKind,
    MahjongHand,
    Pattern,
    Report510k,
    ScoringError,
    Win,
    WinType,
    score_hand,
    settle_hand,
)
from service.requests import Gang, Hu, HuClause, PlayerRef, RefKind, Report, Seats
from service.views import balances_by_unit
from storage.gateway import chats
from storage.models import Event, ProcessedUpdate, Season

NAME_POOLS: tuple[tuple[str, ...], ...] = (
    ("Alice", "Bruno", "Carla", "Diego"),
    ("老王", "小李", "阿张", "老陈"),
    ("Mei", "Jun", "Hao", "Lin"),
    ("Olga", "Piet", "Quinn", "Rosa"),
    ("Sven", "Tomas", "Ulla", "Vera"),
)

HOW_WORDS: dict[WinType, tuple[str, ...]] = {
    WinType.ZIMO: ("zimo", "自摸"),
    WinType.DIANPAO: ("pao", "点炮"),
    WinType.GANGKAI: ("gangkai", "杠上花"),
    WinType.GANGPAO: ("gangpao",),
    WinType.QIANGGANG: ("qianggang",),
    WinType.QUANQIUPAO: ("quanqiupao",),
    WinType.HAIDILAO: ("haidi",),
    WinType.HAIDIPAO: ("haidipao",),
    WinType.TIANHU: ("tianhu",),
    WinType.DIHU: ("dihu",),
    WinType.RENHU: ("renhu",),
}
SPECIAL = frozenset({WinType.TIANHU, WinType.DIHU, WinType.RENHU})
LAST_TILE_AND_SPECIAL = (
    WinType.HAIDILAO,
    WinType.HAIDIPAO,
    WinType.QUANQIUPAO,
    WinType.TIANHU,
    WinType.DIHU,
    WinType.RENHU,
)
ONE_PAYER = frozenset(
    {
        WinType.DIANPAO,
        WinType.GANGPAO,
        WinType.QIANGGANG,
        WinType.QUANQIUPAO,
        WinType.HAIDIPAO,
    }
)


@dataclass
class Step:
    """One message of the script and what it must do."""

    text: str
    sender: int  # index into the chat's users
    seq: int | None = None  # the event it records (None: none)
    error: bool = False  # refused: nothing written, its update id is not claimed either
    update_id: int = 0  # given when the chats are interleaved


@dataclass(frozen=True)
class ExpectedEvent:
    seq: int
    kind: str
    hand_no: int | None
    text: str
    undone_by: int | None  # the seq of the undo that reverted it


@dataclass
class ChatScript:
    index: int
    chat_id: int
    game: str  # "mahjong" | "510k" | "510k3"
    names: tuple[str, ...]
    steps: list[Step]
    events: list[ExpectedEvent]
    balances: dict[str, Fraction]

    @property
    def unit(self) -> str:
        return "mahjong" if self.game == "mahjong" else "510k"

    @property
    def live_hands(self) -> int:
        return sum(1 for e in self.events if e.kind == "hand" and e.undone_by is None)

    @property
    def title(self) -> str:
        return f"{self.game} table {self.index}"


# ---------------------------------------------------------------- the ledger model


@dataclass
class _Record:
    seq: int
    kind: str  # "hand" | "kong" | "undo"
    hand_no: int | None
    text: str
    kong: Kong | None = None
    nets: dict[int, Fraction] = field(default_factory=dict)
    dealer_before: int = 0
    undone_by: int | None = None
    same: object = None  # a hand's content, as the two-minute rule compares it

    @property
    def live(self) -> bool:
        return self.undone_by is None


def near(same: object) -> list[tuple[int, str, int | None]]:
    """A hand's winners with their way and payer: the same with other flags is a near repeat,
    asked about too (issue 37); none for a drawn hand."""
    clauses = same if isinstance(same, tuple) else ()
    return sorted((c.winner, c.how.value, c.discarder) for c in clauses if isinstance(c, _Clause))


class _Ledger:
    """One chat with one table: numbered events, balances per seat, the dealer."""

    def __init__(self, players: int) -> None:
        self.records: list[_Record] = []
        self.next_seq = 1
        self.next_hand_no = 1
        self.balance = [Fraction(0)] * players
        self.dealer = 0

    def add(self, kind: str, text: str, **fields: Any) -> _Record:
        hand_no = None
        if kind == "hand":
            hand_no, self.next_hand_no = self.next_hand_no, self.next_hand_no + 1
        record = _Record(self.next_seq, kind, hand_no, text, **fields)
        self.next_seq += 1
        self.records.append(record)
        for seat, net in record.nets.items():
            self.balance[seat] += net
        return record

    def pending_kongs(self) -> list[_Record]:
        """Live kongs after the last live hand: they belong to the hand being played."""
        out: list[_Record] = []
        for record in self.records:
            if not record.live:
                continue
            if record.kind == "hand":
                out = []
            elif record.kind == "kong":
                out.append(record)
        return out

    def repeats(self, same: object) -> bool:
        """Whether a hand of this content would ask first: the table's newest hand or kong
        (undone or not) is a live hand with the same content (the script is faster than two
        minutes)."""
        last = next((r for r in reversed(self.records) if r.kind != "undo"), None)
        return (
            last is not None
            and last.kind == "hand"
            and last.live
            and (last.same == same or near(last.same) == near(same) != [])
        )

    def last_live(self) -> _Record | None:
        return next((r for r in reversed(self.records) if r.live and r.kind != "undo"), None)

    def undo(self, text: str, *, mahjong: bool) -> _Record | None:
        target = self.last_live()
        if target is None:
            return None  # "Nothing to undo.": no event
        undo = self.add("undo", text)
        target.undone_by = undo.seq
        for seat, net in target.nets.items():
            self.balance[seat] -= net
        if mahjong and target.kind == "hand":
            self.dealer = target.dealer_before
        return undo

    def expected_events(self) -> list[ExpectedEvent]:
        return [ExpectedEvent(r.seq, r.kind, r.hand_no, r.text, r.undone_by) for r in self.records]


# ---------------------------------------------------------------- script builders


class _Builder:
    """Shared by both games: player references, steps, the ledger."""

    players = 4

    def __init__(self, rng: random.Random, names: tuple[str, ...]) -> None:
        self.rng = rng
        self.names = names
        self.ledger = _Ledger(len(names))
        self.steps: list[Step] = []
        self.undo_sender = 0  # who said the last /undo

    def ref(self, seat: int) -> str:
        """A player as people write them: the name, the seat number, or the name in lower case."""
        roll = self.rng.random()
        if roll < 0.65:
            return self.names[seat]
        if roll < 0.85:
            return str(seat + 1)
        return self.names[seat].lower()

    def say(
        self,
        text: str,
        record: _Record | None = None,
        *,
        error: bool = False,
        sender: int | None = None,
    ) -> None:
        sender = self.rng.randrange(self.players) if sender is None else sender
        self.steps.append(Step(text, sender, record.seq if record else None, error))

    def check_ref(self, ref: PlayerRef | None, seat: int | None) -> None:
        if seat is None:
            assert ref is None, ref
            return
        assert ref is not None
        if ref.kind is RefKind.SEAT:
            assert int(ref.value) == seat + 1, (ref, seat)
        else:
            assert ref.kind is RefKind.NAME and ref.value.casefold() == self.names[seat].casefold()

    def undo(self, mahjong: bool) -> None:
        """A bare /undo right after another member's asks first (issue 12): the member who
        undid the last record goes on."""
        text = "/undo"
        records = self.ledger.records
        again = bool(records) and records[-1].kind == "undo"
        sender = self.undo_sender if again else self.rng.randrange(self.players)
        self.say(text, self.ledger.undo(text, mahjong=mahjong), sender=sender)
        self.undo_sender = sender

    def others(self, *seats: int) -> list[int]:
        return [s for s in range(self.players) if s not in seats]


@dataclass(frozen=True)
class _Clause:
    winner: int
    how: WinType
    discarder: int | None = None
    chain: int | None = None  # as typed (None: not given)
    pattern: Pattern = Pattern.JIHU
    groups: int = 0
    qys: bool = False
    mq: bool = False
    qqr: bool = False
    sealed: int | None = None


class _Mahjong(_Builder):
    def build(self, hands: int) -> None:
        game = self.rng.choice(("mahjong", "麻将"))
        self.say(f"/new {game}")
        self.say("/seats " + " ".join(self.names))
        while len(self.steps) < hands:
            roll = self.rng.random()
            pending = self.ledger.pending_kongs()
            if roll < 0.07 and self.ledger.last_live() is not None:
                self.undo(mahjong=True)
            elif roll < 0.09:
                self.refused()
            elif roll < 0.30 and len(pending) < 4:
                self.gang()
            else:
                self.hand()

    def refused(self) -> None:
        seat = self.rng.randrange(4)
        if self.rng.random() < 0.5:
            self.say(f"/gang {self.ref(seat)} ming {self.ref(seat)}", error=True)
        else:
            self.say(f"/hu {self.ref(seat)} pao {self.ref(seat)}", error=True)

    def gang(self) -> None:
        konger = self.rng.randrange(4)
        kind = self.rng.choice((KongKind.AN, KongKind.MING, KongKind.BU))
        source = None if kind is KongKind.AN else self.rng.choice(self.others(konger))
        text = f"/gang {self.ref(konger)} {kind.value}"
        if source is not None:
            text += f" {self.ref(source)}"
        request = parse(text, "jifen_bot")
        assert isinstance(request, Gang) and request.kind is kind, (text, request)
        self.check_ref(request.player, konger)
        self.check_ref(request.source, source)
        self.say(text, self.ledger.add("kong", text, kong=Kong(konger, kind, source)))

    # -- a finished hand

    def hand(self) -> None:
        clauses = self.clauses()
        while self.ledger.repeats(tuple(clauses)):
            clauses = self.clauses()
        if not clauses:
            text = self.rng.choice(("/liuju", "/流局"))
        else:
            text = "/hu " + "; ".join(self.clause_text(c) for c in clauses)
            request = parse(text, "jifen_bot")
            assert isinstance(request, Hu) and len(request.clauses) == len(clauses), text
            for typed, meant in zip(request.clauses, clauses, strict=True):
                self.check_clause(text, typed, meant)
        nets, next_dealer = self.settle(clauses, text)
        dealer = self.ledger.dealer
        record = self.ledger.add("hand", text, nets=nets, dealer_before=dealer, same=tuple(clauses))
        self.ledger.dealer = next_dealer
        self.say(text, record)

    def clauses(self) -> list[_Clause]:
        rng, dealer = self.rng, self.ledger.dealer
        pending = self.ledger.pending_kongs()
        kongers = sorted({r.kong.konger for r in pending if r.kong is not None})
        roll = rng.random()
        if roll < 0.05:
            return []  # 流局
        if roll < 0.30:
            return [self.with_flags(_Clause(rng.randrange(4), WinType.ZIMO))]
        if roll < 0.55:
            winner = rng.randrange(4)
            return [
                self.with_flags(_Clause(winner, WinType.DIANPAO, rng.choice(self.others(winner))))
            ]
        if roll < 0.65 and kongers:
            winner = rng.choice(kongers)
            mine = [r for r in pending if r.kong is not None and r.kong.konger == winner]
            chain = rng.choice((None, 1, 2)) if len(mine) >= 2 else rng.choice((None, 1))
            exposed = any(r.kong.kind is not KongKind.AN for r in mine[-(chain or 1) :] if r.kong)
            return [self.with_flags(_Clause(winner, WinType.GANGKAI, chain=chain), mq=not exposed)]
        if roll < 0.71:
            winner = rng.randrange(4)
            payer = rng.choice(self.others(winner))
            clause = _Clause(winner, WinType.GANGPAO, payer, chain=rng.choice((None, 1, 2, 3)))
            return [self.with_flags(clause)]
        if roll < 0.77:
            robbable = [s for s in range(4) if self.robbable(s, pending)]
            if not robbable:
                return [self.with_flags(_Clause(rng.randrange(4), WinType.ZIMO))]
            payer = rng.choice(robbable)
            winner = rng.choice(self.others(payer))
            return [self.with_flags(_Clause(winner, WinType.QIANGGANG, payer))]
        if roll < 0.85:
            payer = rng.randrange(4)
            winners = rng.sample(self.others(payer), rng.choice((2, 2, 3)))
            return [
                self.with_flags(_Clause(w, WinType.DIANPAO, payer), sealed=False) for w in winners
            ]
        how = rng.choice(LAST_TILE_AND_SPECIAL)
        if how is WinType.TIANHU:
            if self.kinds_of(dealer):  # 天胡 comes before any kong
                return [self.with_flags(_Clause(dealer, WinType.ZIMO))]
            return [self.with_flags(_Clause(dealer, how))]
        winner = rng.choice(self.others(dealer)) if how in SPECIAL else rng.randrange(4)
        if how in SPECIAL and self.kinds_of(winner):  # so do 地胡 and 人胡
            return [self.with_flags(_Clause(winner, WinType.ZIMO))]
        payer = rng.choice(self.others(winner)) if how in ONE_PAYER else None
        return [self.with_flags(_Clause(winner, how, payer))]

    @staticmethod
    def robbable(seat: int, pending: Sequence[_Record]) -> bool:
        """A robbed player whose last pending kong is not concealed (that could not be robbed)."""
        theirs = [r.kong for r in pending if r.kong is not None and r.kong.konger == seat]
        return not theirs or theirs[-1].kind is not KongKind.AN

    def kinds_of(self, seat: int) -> set[KongKind]:
        """The kinds of kong `seat` made in the hand being played."""
        pending = self.ledger.pending_kongs()
        return {r.kong.kind for r in pending if r.kong is not None and r.kong.konger == seat}

    def with_flags(self, clause: _Clause, *, mq: bool = True, sealed: bool = True) -> _Clause:
        """Flags that agree with the hand and the winner's kongs (scoring refuses the others)."""
        rng = self.rng
        special = clause.how in SPECIAL
        kinds = self.kinds_of(clause.winner)
        pattern, groups = Pattern.JIHU, 0
        roll = rng.random()
        if roll < 0.25:
            pattern = Pattern.PENGPENGHU
        elif roll < 0.45 and not kinds:  # seven pairs hold no kong
            pattern, groups = Pattern.QIDUI, rng.randrange(4)
        qys = rng.random() < 0.25
        qqr = pattern is not Pattern.QIDUI and not special and rng.random() < 0.08
        qqr = qqr and KongKind.AN not in kinds
        mq = mq and not kinds - {KongKind.AN}
        menqing = mq and not qqr and pattern is not Pattern.QIDUI and rng.random() < 0.15
        seal = None
        if sealed and not (menqing or special or pattern is Pattern.QIDUI) and rng.random() < 0.15:
            seal = rng.choice(self.others(clause.winner))
        return _Clause(
            clause.winner,
            clause.how,
            clause.discarder,
            clause.chain,
            pattern,
            groups,
            qys,
            menqing,
            qqr,
            seal,
        )

    def clause_text(self, c: _Clause) -> str:
        words = [self.ref(c.winner), self.rng.choice(HOW_WORDS[c.how])]
        if c.discarder is not None:
            words.append(self.ref(c.discarder))
        if c.chain is not None:
            words.append(str(c.chain))
        if c.pattern is Pattern.PENGPENGHU:
            words.append(self.rng.choice(("pph", "碰碰胡")))
        elif c.pattern is Pattern.QIDUI:
            words.append("qidui" + (str(c.groups) if c.groups else ""))
        elif self.rng.random() < 0.1:
            words.append("jihu")
        if c.qys:
            words.append(self.rng.choice(("qys", "清一色")))
        if c.mq:
            words.append("mq")
        if c.qqr:
            words.append("qqr")
        if c.sealed is not None:
            words += ["feng", self.ref(c.sealed)]
        return " ".join(words)

    def check_clause(self, text: str, typed: HuClause, meant: _Clause) -> None:
        self.check_ref(typed.winner, meant.winner)
        self.check_ref(typed.source, meant.discarder)
        self.check_ref(typed.sealed, meant.sealed)
        got = (typed.how, typed.chain, typed.pattern, typed.groups)
        want = (meant.how, meant.chain, meant.pattern, meant.groups)
        assert got == want, (text, got, want)
        flags = (typed.qingyise, typed.menqing, typed.quanqiuren)
        assert flags == (meant.qys, meant.mq, meant.qqr), (text, flags)

    def settle(self, clauses: Sequence[_Clause], text: str) -> tuple[dict[int, Fraction], int]:
        """The hand as the rules see it: pending kongs, chains, the robbed kong; then scored."""
        pending = [(r.seq, r.kong) for r in self.ledger.pending_kongs() if r.kong is not None]
        used: set[int] = set()
        wins = []
        for c in clauses:
            chain = c.chain or 1
            chain_kongs: tuple[Kong, ...] = ()
            if c.how is WinType.GANGKAI:
                mine = [(s, k) for s, k in pending if k.konger == c.winner and s not in used]
                assert len(mine) >= chain, text
                taken = mine[-chain:]
                used.update(s for s, _ in taken)
                chain_kongs, chain = tuple(k for _, k in taken), len(taken)
            elif c.how is WinType.QIANGGANG:
                assert c.discarder is not None
                theirs = [(s, k) for s, k in pending if k.konger == c.discarder and s not in used]
                if theirs and theirs[-1][1].kind is KongKind.BU:
                    used.add(theirs[-1][0])  # the robbed kong is cancelled
                    chain_kongs = (
                        tuple(k for _, k in theirs[-chain:]) if len(theirs) >= chain else ()
                    )
            wins.append(
                Win(
                    winner=c.winner,
                    how=c.how,
                    discarder=c.discarder,
                    pattern=c.pattern,
                    groups=c.groups,
                    qingyise=c.qys,
                    menqing=c.mq,
                    quanqiuren=c.qqr,
                    chain=chain,
                    chain_kongs=chain_kongs,
                    sealed=c.sealed,
                )
            )
        hand = MahjongHand(
            dealer=self.ledger.dealer,
            wins=tuple(wins),
            kongs=tuple(k for s, k in pending if s not in used),
        )
        try:
            result = settle_hand(hand)
        except ScoringError as err:  # the script must only say valid things
            raise AssertionError(f"the script made an invalid hand {text!r}: {err}") from err
        return {seat: Fraction(n) for seat, n in result.net().items()}, result.next_dealer


class _K510(_Builder):
    def __init__(self, rng: random.Random, names: tuple[str, ...]) -> None:
        super().__init__(rng, names)
        self.players = len(names)

    def build(self, hands: int) -> None:
        game = "510k" if self.players == 4 else "510k3"
        self.say(f"/new {self.rng.choice((game, game.upper()))}")
        self.say("/seats " + " ".join(self.names))
        while len(self.steps) < hands:
            roll = self.rng.random()
            if roll < 0.08 and self.ledger.last_live() is not None:
                self.undo(mahjong=False)
            elif roll < 0.10:
                self.say(f"/r {self.ref(0)}=30 out {self.ref(0)}", error=True)  # players missing
            else:
                self.report()

    def order(self) -> tuple[int, ...]:
        rng, n = self.rng, self.players
        first = rng.randrange(n)
        if n == 3:
            return (first, rng.choice(self.others(first)))
        partner = (first + 2) % 4
        other = rng.choice(((first + 1) % 4, (first + 3) % 4))
        return rng.choice(
            ((first, partner), (first, other, partner), (first, other, (other + 2) % 4))
        )

    def report(self) -> None:
        rng, n = self.rng, self.players
        order = self.order()
        while self.ledger.repeats(order):  # the same winners again: other points then
            order = self.order()
        held = [0 if s in order else 5 * rng.randrange(7) for s in range(n)]
        table = [0] * n
        receivers = list(range(n))
        if n == 4 and rng.random() < 0.2:  # the other team takes nothing: doubled
            loser = (order[0] + 1) % 2
            receivers = [s for s in range(n) if s % 2 != loser]
        rest = 100 - sum(held) - (5 * rng.randrange(1, 4) if rng.random() < 0.05 else 0)
        for _ in range(rest // 5):
            table[rng.choice(receivers)] += 5
        result = score_hand(Report510k(tuple(table), order, tuple(held)))
        entries = []
        for seat in rng.sample(range(n), n):
            entry = f"{self.ref(seat)}={table[seat]}"
            if seat not in order and (held[seat] or rng.random() < 0.3):
                entry += f"/{held[seat]}"
            entries.append(entry)
        text = f"/r {' '.join(entries)} {rng.choice(('out', '出'))} "
        text += " ".join(self.ref(s) for s in order)
        request = parse(text, "jifen_bot")
        assert isinstance(request, Report) and len(request.out) == len(order), text
        for ref, seat in zip(request.out, order, strict=True):
            self.check_ref(ref, seat)
        nets = {seat: score for seat, score in enumerate(result.scores)}
        self.say(text, self.ledger.add("hand", text, nets=nets, same=order))


# ---------------------------------------------------------------- scripts


def build_scripts(
    seed: int,
    *,
    chats: int,
    updates: int,
    first_chat_id: int,
    games: Sequence[str] = ("mahjong", "mahjong", "510k", "mahjong", "510k3"),
) -> list[ChatScript]:
    """`chats` scripts of `updates` messages in all (shared out evenly), games in rotation."""
    rng = random.Random(seed)
    scripts = []
    for index in range(chats):
        game = games[index % len(games)]
        names = NAME_POOLS[index % len(NAME_POOLS)][: 3 if game == "510k3" else 4]
        length = updates // chats + (1 if index < updates % chats else 0)
        builder: _Mahjong | _K510 = _Mahjong(rng, names) if game == "mahjong" else _K510(rng, names)
        builder.build(length)
        request = parse(builder.steps[1].text, "jifen_bot")
        assert isinstance(request, Seats) and len(request.names) == len(names)
        scripts.append(
            ChatScript(
                index=index,
                chat_id=first_chat_id - index,
                game=game,
                names=names,
                steps=builder.steps,
                events=builder.ledger.expected_events(),
                balances=dict(zip(names, builder.ledger.balance, strict=True)),
            )
        )
    return scripts


def interleave(scripts: Sequence[ChatScript], seed: int, first_update_id: int) -> list[Step]:
    """Give the steps increasing update ids in a random merge of the chats (each chat in order)."""
    rng = random.Random(seed)
    cursors = [0] * len(scripts)
    remaining = [i for i, s in enumerate(scripts) if s.steps]
    merged = []
    update_id = first_update_id
    while remaining:
        i = rng.choice(remaining)
        step = scripts[i].steps[cursors[i]]
        step.update_id = update_id
        update_id += 1
        merged.append(step)
        cursors[i] += 1
        if cursors[i] == len(scripts[i].steps):
            remaining.remove(i)
    return merged


# ---------------------------------------------------------------- the check


def ledger_problems(engine: Engine, scripts: Iterable[ChatScript]) -> list[str]:
    """Everything in the database that differs from the scripts' expectations (empty: none)."""
    problems: list[str] = []
    with Session(engine) as session:
        for script in scripts:
            problems += _chat_problems(session, script)
    return problems


def _chat_problems(session: Session, script: ChatScript) -> list[str]:
    where = f"chat {script.chat_id} ({script.title})"
    out: list[str] = []
    events = session.exec(
        select(Event).where(Event.chat_id == script.chat_id).order_by(col(Event.seq))
    ).all()
    seq_of = {e.id: e.seq for e in events}
    got = [ExpectedEvent(e.seq, e.kind, e.hand_no, e.text, seq_of.get(e.undone_by)) for e in events]
    if got != script.events:
        first = next(
            (i for i, (a, b) in enumerate(zip(got, script.events, strict=False)) if a != b),
            min(len(got), len(script.events)),
        )
        out.append(
            f"{where}: {len(got)} events, expected {len(script.events)}; first difference at "
            f"#{first}: got {got[first] if first < len(got) else None}, "
            f"expected {script.events[first] if first < len(script.events) else None}"
        )
    hand_nos = [e.hand_no for e in events if e.kind == "hand"]
    if hand_nos != list(range(1, len(hand_nos) + 1)):
        out.append(f"{where}: hand numbers are not 1..N without gaps: {hand_nos}")
    live = sum(1 for e in events if e.kind == "hand" and e.undone_by is None)
    if live != script.live_hands:
        out.append(f"{where}: {live} live hands, expected {script.live_hands}")

    claimed = {
        p.update_id: p.event_id
        for p in session.exec(
            select(ProcessedUpdate).where(ProcessedUpdate.chat_id == script.chat_id)
        ).all()
    }
    expected = {s.update_id: s.seq for s in script.steps if not s.error}
    if set(claimed) != set(expected):
        missing = sorted(set(expected) - set(claimed))[:5]
        extra = sorted(set(claimed) - set(expected))[:5]
        out.append(f"{where}: claimed update ids differ: missing {missing}, unexpected {extra}")
    linked = {u: seq_of.get(e) if e is not None else None for u, e in claimed.items()}
    wrong = [(u, linked.get(u), seq) for u, seq in expected.items() if linked.get(u) != seq]
    if wrong:
        out.append(f"{where}: updates linked to the wrong event (update, got, want): {wrong[:5]}")

    seasons = session.exec(select(Season).where(Season.chat_id == script.chat_id)).all()
    if len(seasons) != 1:
        out.append(f"{where}: {len(seasons)} seasons, expected 1")
        return out
    balances: dict[str, Fraction] = {}
    season = chats.current_season(session.connection(), script.chat_id)
    assert season is not None and season.id == seasons[0].id
    for name, amount in balances_by_unit(session.connection(), season).get(script.unit, []):
        if name in balances:
            out.append(f"{where}: two balance rows for {name}")
        balances[name] = amount
    want = {name: amount for name, amount in script.balances.items() if amount or name in balances}
    if balances != want:
        out.append(f"{where}: balances {balances}, expected {want}")
    if sum(balances.values(), Fraction(0)) != sum(script.balances.values(), Fraction(0)):
        out.append(f"{where}: the balances' total differs")
    return out


def summary(scripts: Sequence[ChatScript]) -> dict[str, int]:
    """Counts for the test's report line."""
    events = [e for s in scripts for e in s.events]
    return {
        "chats": len(scripts),
        "updates": sum(len(s.steps) for s in scripts),
        "hands": sum(1 for e in events if e.kind == "hand"),
        "kongs": sum(1 for e in events if e.kind == "kong"),
        "undos": sum(1 for e in events if e.kind == "undo"),
        "refused": sum(1 for s in scripts for step in s.steps if step.error),
    }
