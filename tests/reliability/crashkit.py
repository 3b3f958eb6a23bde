"""Tools of the crash tests: a deterministic stream of commands and the ledger it must produce,
computed independently with the pure scoring package."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

from sqlalchemy import text
from sqlalchemy.engine import Engine

from scoring import MahjongHand, Pattern, Win, WinType, score_hand, settle_hand
from scoring.k510_model import Report510k
from tests.integration.helpers import Chat

NAMES = ("Ann", "Bob", "Cat", "Dan")


# --------------------------------------------------------------------------- the stream


@dataclass(frozen=True)
class Command:
    chat_id: int
    user: str
    text: str
    writes: bool = True  # a write: it claims its update id when applied


@dataclass
class Model:
    """One chat's ledger computed from the commands applied, each exactly once."""

    game: str
    dealer: int = 0
    live: list[tuple[dict[str, Fraction], int]] = field(default_factory=list)  # deltas, dealer
    undone_by: str | None = None  # who wrote the table's latest record, if it is an undo

    def apply(self, command: str, sender: str) -> None:
        words = command.split()
        if words[0] == "/undo":
            if self.undone_by not in (None, sender):
                return  # right after another member's undo: asks first, undoes nothing
            if self.live:
                _, self.dealer = self.live.pop()
                self.undone_by = sender
            return
        if words[0] == "/standings":
            return
        self.undone_by = None
        if self.game == "mahjong":
            self._mahjong(words)
        else:
            self._k510(words)

    def _mahjong(self, words: list[str]) -> None:
        wins: tuple[Win, ...] = ()
        if words[0] == "/hu":
            winner = int(words[1]) - 1
            if words[2] == "zimo":
                win = Win(winner, WinType.ZIMO, qingyise="qys" in words)
            else:
                pattern = Pattern.PENGPENGHU if "pph" in words else Pattern.JIHU
                win = Win(winner, WinType.DIANPAO, discarder=int(words[3]) - 1, pattern=pattern)
            wins = (win,)
        result = settle_hand(MahjongHand(dealer=self.dealer, wins=wins))
        deltas = dict.fromkeys(NAMES, Fraction(0))
        for t in result.transfers:
            deltas[NAMES[t.payer]] -= t.amount
            deltas[NAMES[t.payee]] += t.amount
        self.live.append((deltas, self.dealer))
        self.dealer = result.next_dealer

    def _k510(self, words: list[str]) -> None:
        entries = words[1 : words.index("out")]
        table, held = [0] * 4, [0] * 4
        for entry in entries:
            seat, figures = entry.split("=")
            points, _, hand = figures.partition("/")
            table[int(seat) - 1], held[int(seat) - 1] = int(points), int(hand or 0)
        order = tuple(int(w) - 1 for w in words[words.index("out") + 1 :])
        result = score_hand(Report510k(tuple(table), order, tuple(held)))
        self.live.append(({n: Fraction(s) for n, s in zip(NAMES, result.scores, strict=True)}, 0))

    def balances(self) -> dict[str, Fraction]:
        out = dict.fromkeys(NAMES, Fraction(0))
        for deltas, _ in self.live:
            for name, amount in deltas.items():
                out[name] += amount
        return out


MAHJONG = (
    "/hu {w} zimo",
    "/hu {w} zimo qys",
    "/hu {w} pao {d}",
    "/hu {w} pao {d} pph",
    "/liuju",
    "/undo",
    "/standings",
)
K510 = (
    "/r 1=30 2=20 3=40 4=10 out 1 3",
    "/r 1=25 2=35 3=20 4=0/20 out 2 1 3",
    "/r 1=20 2=30 3=50 4=0 out 2 4",
    "/r 1=0 2=60 3=10 4=30 out 4 2",
    "/undo",
    "/standings",
)


def alike(line: str) -> tuple[str, ...]:
    """What makes two records near repeats (issue 37): a hand without its flags, a 510K
    report's finishing order."""
    words = line.split()
    if words[0] == "/hu":
        return tuple(w for w in words if w not in ("qys", "pph"))
    if words[0] == "/r":
        return ("/r", *words[words.index("out") :])
    return (line,)


def make_stream(chats: dict[int, str], hands: int, seed: int) -> list[Command]:
    """Setup of every chat, then `hands` commands per chat, interleaved at random."""
    rng = random.Random(seed)
    stream = []
    for chat_id, game in chats.items():
        stream.append(Command(chat_id, "Ann", f"/new {game}"))
        stream.append(Command(chat_id, "Ann", "/seats " + " ".join(NAMES)))
    queues = []
    for chat_id, game in chats.items():
        queue: list[Command] = []
        last = ""  # the chat's last record: the same again within two minutes would ask first
        while len(queue) < hands:
            template = rng.choice(MAHJONG if game == "mahjong" else K510)
            w, d = rng.sample(range(1, 5), 2)
            line = template.format(w=w, d=d)
            if line == last or (last and alike(line) == alike(last)):
                continue  # the same or a near repeat (same winner and way, same order) asks
            if line not in ("/undo", "/standings"):
                last = line
            queue.append(Command(chat_id, rng.choice(NAMES), line, writes=line != "/standings"))
        queues.append(queue)
    while any(queues):
        queue = rng.choice([q for q in queues if q])
        stream.append(queue.pop(0))
    return stream


def expected_balances(
    chats: dict[int, str], stream: list[Command]
) -> dict[int, dict[str, Fraction]]:
    models = {chat_id: Model(game) for chat_id, game in chats.items()}
    for command in stream:
        if not command.text.startswith(("/new", "/seats")):
            models[command.chat_id].apply(command.text, command.user)
    return {chat_id: model.balances() for chat_id, model in models.items()}


# --------------------------------------------------------------------------- the database


def ledger(engine: Engine, chat_id: int, unit: str) -> dict[str, Fraction]:
    """The current season's balances of one chat as /standings shows them, by player name
    (every seated player)."""
    found = Chat(engine, chat_id).balances(unit)
    return {name: found.get(name, Fraction(0)) for name in NAMES}


def applied(engine: Engine, update_ids: list[int]) -> set[int]:
    """Which of these update ids the bot recorded as processed."""
    if not update_ids:
        return set()
    with engine.connect() as conn:
        rows = conn.execute(
            text(
                "SELECT update_id FROM processed_update WHERE update_id >= :lo AND update_id <= :hi"
            ),
            {"lo": min(update_ids), "hi": max(update_ids)},
        )
        return {int(r[0]) for r in rows} & set(update_ids)


def wait_until(condition: Callable[[], bool], timeout: float, step: float = 0.1) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step)
    return condition()
