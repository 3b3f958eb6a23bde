"""What the bench sends: 20 group chats — mahjong, 510K and free scoring in turn — commands
interleaved."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from bench.harness import Message, players
from bench.product import Chat

CHATS = 20
GAMES = ("mahjong", "510k", "free")

#: A mahjong evening: every line ends a hand except ``/gang`` (settled by the next hand).
MAHJONG_CYCLE = (
    "/hu 1 zimo",
    "/hu 2 pao 3",
    "/hu Cat zimo qys pph",
    "/hu 4 pao 1 qidui",
    "/gang 2 an",
    "/hu 2 gangkai",
    "/hu 1 pao 2; 3 pao 2",
    "/liuju",
    "/hu 3 gangpao 4",
    "/hu 2 haidi",
    "/hu Dan pao Bob pph mq",
    "/gang 1 ming 3",
    "/hu 3 qianggang 4",
    "/hu 1 zimo qys",
    "/hu 4 pao 3 qidui1",
    "/hu 2 zimo mq",
)

#: 510K reports: table points plus points held sum to 100; ``out`` lists who went out.
K510_CYCLE = (
    "/r 1=30 2=20 3=40 4=10 out 1 3",
    "/r A=25 B=35 C=20 D=0/20 out B A C",
    "/r 1=50 2=30 3=10 4=0/10 out 1 3",
    "/r 1=0 2=60 3=5 4=35 out 2 4",
    "/r Ann=40 Bob=10 Cat=30 Dan=10/10 out Ann Bob Cat",
    "/r 1=20 2=25 3=30 4=25 out 3 1",
)


#: Free rounds (a name without a number balances) and a transfer (recorded, not a hand).
FREE_CYCLE = (
    "/s 1+30 2-10 3-20",
    "/s Ann-12.5 Bob+2.5 Cat",
    "/s 4+40 1-40",
    "/pay 2 3 5",
    "/s Bob+10 Cat+10 Dan-15 Ann",
    "/s 3+7.25 4",
)
CYCLES = {"mahjong": MAHJONG_CYCLE, "510k": K510_CYCLE, "free": FREE_CYCLE}


@dataclass(frozen=True)
class Table:
    """A chat with its game and the four users at its table."""

    index: int
    chat: Chat
    game: str  # "mahjong" | "510k" | "free"

    @property
    def cycle(self) -> tuple[str, ...]:
        return CYCLES[self.game]


def tables(count: int = CHATS, first_id: int = -1_007_000_000) -> list[Table]:
    """``count`` supergroups, mahjong, 510K and free scoring in turn."""
    return [
        Table(i, Chat(first_id - i, "supergroup", title=f"bench {i}"), GAMES[i % len(GAMES)])
        for i in range(count)
    ]


def chats_of(tabs: Sequence[Table]) -> list[Chat]:
    return [t.chat for t in tabs]


def seating(table: Table) -> list[Message]:
    """Open the table and seat its four users."""
    users = players(table.index)
    opening = [Message(table.chat, users[0], f"/new {table.game}")]
    return opening + [Message(table.chat, user, "/join") for user in users]


HAND_COMMANDS = frozenset({"/hu", "/liuju", "/r", "/s"})


def is_hand(text: str) -> bool:
    """Whether a command records a hand or round (``/gang``, ``/pay``, ``/new``, ``/join`` do
    not)."""
    return text.split(maxsplit=1)[0] in HAND_COMMANDS


def _lines(table: Table) -> Iterator[Message]:
    users = players(table.index)
    for step, text in enumerate(itertools.cycle(table.cycle)):
        yield Message(table.chat, users[step % len(users)], text)


class Evening:
    """Endless command streams of the tables; each batch continues where the last stopped."""

    def __init__(self, tabs: Sequence[Table]) -> None:
        self._streams = [_lines(t) for t in tabs]

    def batch(self, per_table: int) -> list[Message]:
        """``per_table`` commands of every table, round-robin over the chats."""
        return [next(stream) for _ in range(per_table) for stream in self._streams]


def hand_count(messages: Sequence[Message]) -> int:
    return sum(is_hand(m.text) for m in messages)
