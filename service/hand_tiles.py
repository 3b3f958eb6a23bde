"""A /hu clause written with the winner's tiles: read for its way to win, checked against the
words typed beside them and against the kongs recorded for the winner in this hand (/gang).

The tiles decide: the highest-scoring reading is scored (a pattern word beside them must be one
some reading has; a word naming a lower reading is noted, not obeyed), and the reply shows the
reading scored. When no kong of the winner was recorded, the concealed kongs the tiles show are
recorded with the hand and paid as /gang would; an exposed one needs its discarder, so it must
be recorded with /gang (or given in a 杠上花's chain). The ledger keeps the reading in the win's
data and, for /export, in the event's `tiles` column.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scoring.errors import ScoringError
from scoring.mahjong_model import Kong, KongKind, Pattern, Win, WinType
from scoring.tiles import Meld, MeldKind, Reading, TilesReading, check_words, read_tiles
from scoring.tiles_model import TILES_ERRORS
from service import players as who
from service.errors import N_, ServiceError
from service.requests import HuClause
from service.unit import Tx
from storage.models import PlayerRow, TableRow

USAGE_TILES = N_(
    "/hu <winner> <how> <tiles>, e.g. /hu 老王 pao 小李 [777p] 123m456m789s55s · suits m 万 p 筒 "
    "s 条 z 字 (1–7 东南西北中发白) · [777p] exposed pung or kong · (9999m) concealed kong"
)
USAGE_GANG_FIRST = N_("/gang <player> ming <from> · /gang <player> bu <from>, then the /hu")
_SPECIAL = {WinType.TIANHU: "天胡", WinType.DIHU: "地胡", WinType.RENHU: "人胡"}
#: A refusal's pattern words as the table says them (both languages read the Chinese).
_WORDS = {
    "jihu": "鸡胡 jihu",
    "pph": "碰碰胡 pph",
    "qidui": "七对 qidui",
    "qidui1": "七大对 qidui1",
    "qidui2": "豪华大七对 qidui2",
    "qidui3": "超级豪华大七对 qidui3",
}


@dataclass(frozen=True)
class ReadHand:
    """A clause's tiles as scored: the reading, how many readings the tiles have, and the
    pattern word typed beside them when the tiles score more as another pattern."""

    tiles: TilesReading
    written: str | None

    @property
    def reading(self) -> Reading:
        return self.tiles.best

    def data(self) -> dict[str, Any]:
        """What the win's data keeps of it."""
        out: dict[str, Any] = {
            "hand": str(self.tiles.tiles),
            "reading": reading_text(self.reading),
            "readings": len(self.tiles.readings),
        }
        if self.written is not None:
            out["written"] = self.written
        return out


@dataclass(frozen=True)
class HandsRead:
    """The clauses' tiles (by clause index) and the kongs the tiles add to the hand."""

    hands: dict[int, ReadHand] = field(default_factory=dict)
    kongs: tuple[Kong, ...] = ()

    def apply(self, index: int, win: Win) -> Win:
        """The clause's win with its reading's pattern and flags (as it is without tiles)."""
        hand = self.hands.get(index)
        return win if hand is None else hand.reading.apply(win)

    def data(self, index: int) -> dict[str, Any]:
        hand = self.hands.get(index)
        return {} if hand is None else {"tiles": hand.data()}

    def column(self, winners: Sequence[str]) -> str:
        """The event's `tiles`: the reading scored, each named by its winner when several won."""
        if len(winners) == 1:
            hand = self.hands.get(0)
            return "" if hand is None else reading_text(hand.reading)
        return "; ".join(
            f"{winners[i]}: {reading_text(hand.reading)}" for i, hand in sorted(self.hands.items())
        )


NO_TILES = HandsRead()  # a hand written without tiles (/liuju)


def reading_text(reading: Reading) -> str:
    """A reading's groups: `[777p] 123m 456m 789s 55s`; 七对's equal pairs as one set of four."""
    melds = list(reading.melds)
    out: list[str] = []
    while melds:
        meld = melds.pop(0)
        if (
            meld.kind == MeldKind.PAIR
            and melds
            and melds[0] == meld
            and reading.pattern == Pattern.QIDUI
        ):
            melds.pop(0)
            out.append(str(Meld(MeldKind.KONG, meld.tile)).strip("()"))
        else:
            out.append(str(meld))
    return " ".join(out)


def read_hands(
    tx: Tx,
    table: TableRow,
    people: Sequence[PlayerRow],
    clauses: Sequence[HuClause],
    recorded: Sequence[Kong],
) -> HandsRead:
    """Every clause's tiles read and checked (ServiceError, nothing written, when they are not a
    hand or contradict the words or the recorded kongs); the tiles' kongs to record."""
    hands: dict[int, ReadHand] = {}
    kongs: list[Kong] = []
    for index, clause in enumerate(clauses):
        if not clause.tiles:
            continue
        winner = who.seat_of(tx, table, clause.winner, people)
        name = people[winner].name
        read = _read(clause, name)
        kongs += _kongs(tx, table, people, clause, winner, name, read, recorded)
        hands[index] = ReadHand(read, _written(clause, read))
    _one_set([hand.tiles for hand in hands.values()])
    return HandsRead(hands, tuple(kongs))


def _one_set(reads: Sequence[TilesReading]) -> None:
    """Several winners' tiles come from one set of tiles: at most four of each in all their
    hands, the discard they all won on (in each hand) counted once."""
    if len(reads) < 2:
        return
    held = [Counter(read.tiles.concealed) for read in reads]
    total = sum(held, Counter())
    for read in reads:
        total.update(tile for meld in read.tiles.declared for tile in meld.tiles)
    extra = len(reads) - 1
    shared = set.intersection(*(set(counts) for counts in held))
    if not shared:
        raise ServiceError(
            N_(
                "The winners on one discard all won on that tile, so it is in each hand, but "
                "these hands have no tile in common."
            ),
            usage=USAGE_TILES,
        )
    count, tile = min(max((n - extra * (t == won), t) for t, n in total.items()) for won in shared)
    if count > 4:
        raise ServiceError(
            N_(
                "The winners' tiles come from one set: together they hold {count} of {tile} "
                "(the discard they won on counted once), but there are only 4."
            ),
            usage=USAGE_TILES,
            tile=str(tile),
            count=count,
        )


def _read(clause: HuClause, name: str) -> TilesReading:
    try:
        read = read_tiles(clause.tiles, clause.how)
        pattern, groups = clause.pattern, clause.groups
        if pattern == Pattern.QIDUI and not groups:  # 七对 said: the tiles count the fours
            groups = next((r.groups for r in read.readings if r.pattern == pattern), 0)
        check_words(
            read,
            pattern=pattern if clause.pattern_word else None,
            groups=groups,
            qingyise=clause.qingyise,
            menqing=clause.menqing,
            quanqiuren=clause.quanqiuren,
            sealed=clause.sealed is not None,
        )
    except ScoringError as err:
        params = {
            k: _WORDS.get(str(v), v) if k in ("word", "read") else v for k, v in err.params.items()
        }
        if "how" in params:
            params["how"] = _SPECIAL.get(clause.how, clause.how.value)
        raise ServiceError(
            N_("{name}'s tiles: {problem}"),
            usage=USAGE_TILES,
            name=name,
            problem=TILES_ERRORS.get(err.code, str(err)),
            **params,
        ) from err
    return read


def _written(clause: HuClause, read: TilesReading) -> str | None:
    """The pattern word typed beside the tiles, when the reading scored has another pattern."""
    best = read.best
    if not clause.pattern_word or clause.pattern == best.pattern:
        return None
    if clause.pattern == Pattern.QIDUI:
        return f"qidui{clause.groups}"
    return clause.pattern.value


def _kongs(
    tx: Tx,
    table: TableRow,
    people: Sequence[PlayerRow],
    clause: HuClause,
    winner: int,
    name: str,
    read: TilesReading,
    recorded: Sequence[Kong],
) -> list[Kong]:
    """The kongs the tiles add to the hand: their concealed kongs when no kong of the winner
    was recorded in this hand (nor given in a 杠上花's chain), else none; refused when the
    tiles and the recorded kongs disagree, or show an exposed kong nobody recorded."""
    mine = [k for k in recorded if k.konger == winner]
    inline = [
        Kong(
            winner,
            ck.kind,
            None if ck.source is None else who.seat_of(tx, table, ck.source, people),
        )
        for ck in clause.chain_kongs
    ]
    given = mine + ([] if inline and mine[-len(inline) :] == inline else inline)
    shown = read.kongs
    shown_an = sum(not k.exposed for k in shown)
    given_an = sum(k.kind is KongKind.AN for k in given)
    if not given:
        exposed = [k for k in shown if k.exposed]
        if exposed:
            raise ServiceError(
                N_(
                    "{name}'s tiles show the exposed kong {group}, but no kong of {name} was "
                    "recorded in this hand, and the tiles do not say whose tile was konged: "
                    "record it first with /gang, then the /hu."
                ),
                usage=USAGE_GANG_FIRST,
                name=name,
                group=str(exposed[0]),
            )
        added = [Kong(winner, KongKind.AN)] * shown_an
    elif (shown_an, len(shown) - shown_an) != (given_an, len(given) - given_an):
        raise ServiceError(
            N_(
                "{name}'s tiles show {an} concealed and {exposed} exposed kong(s), but this hand "
                "has {an_given} concealed and {exposed_given} exposed kong(s) of {name} "
                "recorded with /gang: write every kong of {name} in the tiles, (9999m) "
                "concealed and [2222s] exposed, or /undo a kong recorded by mistake."
            ),
            usage=USAGE_TILES,
            name=name,
            an=shown_an,
            exposed=len(shown) - shown_an,
            an_given=given_an,
            exposed_given=len(given) - given_an,
        )
    else:
        added = []
    chain = len(inline) or clause.chain or 1
    if clause.how is WinType.GANGKAI and len(shown) < chain:
        raise ServiceError(
            N_(
                "{name} won 杠上花 on the replacement tile of {n} kong(s), but the tiles show "
                "{kongs}: write the kongs in the tiles, (9999m) concealed, [2222s] exposed."
            ),
            usage=USAGE_TILES,
            name=name,
            n=chain,
            kongs=len(shown),
        )
    return added
