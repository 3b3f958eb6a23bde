"""A record as the replies show it (a hand's reply, /history, /undo, the Mini App): its payments,
who sat at it, and what it was scored from per game, typed in scoring's own words (`HandValue`,
`Result510k`, `KongKind`). Built here, once, from the ledger's stored data (`view_of`): no reply
and no renderer reads that data's JSON."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from scoring.games import EventKind, Game
from scoring.k510 import card_points
from scoring.k510_model import Report510k, Result510k
from scoring.mahjong_model import Formula, HandValue, KongKind, Pattern, WinType
from storage.models import EventRow, TransferRow


@dataclass(frozen=True)
class Payment:
    """`payer` pays `payee`; None is the table (510K scores are not zero-sum)."""

    payer: str | None
    payee: str | None
    amount: Fraction | int  # mahjong points are whole
    reason: str  # "win" | "sealed" | "kong" | "score" | "pay"
    value: HandValue | None = None  # a win's or a sealed player's: the hand's arithmetic
    sisuang: bool = False  # a sealed player's under 死双: doubled
    kong: KongKind | None = None  # a kong's


@dataclass(frozen=True)
class TilesView:
    """A winner's hand given as tiles: as written, the reading scored, how many readings it had,
    and a pattern word typed beside them (`pph`, `qidui`) that reads lower."""

    hand: str
    reading: str
    readings: int = 1
    written: str | None = None


@dataclass(frozen=True)
class WinView:
    winner: str
    value: HandValue
    tiles: TilesView | None = None
    unsaid: bool = False  # 门清 not written though it may have been: scored as not 门清


@dataclass(frozen=True)
class MahjongView:
    """A mahjong hand: its wins in order; none, a drawn hand (流局)."""

    wins: tuple[WinView, ...]


@dataclass(frozen=True)
class KongView:
    """A kong recorded with /gang (paid when its hand ends)."""

    kind: KongKind


@dataclass(frozen=True)
class K510View:
    """A 510K hand: each seat's card points this hand (`scoring.k510.card_points`), the points
    reported (100 unless some are missing), and its result: the hand's, or in a marathon the
    finished marathon's (None while it goes on)."""

    card_points: tuple[int, ...]
    reported: int
    result: Result510k | None
    marathon_hands: int | None = None  # a marathon's hand: its hands so far
    marathon_over: bool = False


@dataclass(frozen=True)
class FreeView:
    """A free game's round, or a transfer: the unit it counts in (`free:斗地主`, `mahjong`…)."""

    unit: str


@dataclass(frozen=True)
class FeeView:
    """A fee (/fee): what it was for, its amount, who paid it (None: nobody yet, owed to the
    house), each sharer's share, and who pays a cent more (the cents that do not divide)."""

    what: str
    amount: Fraction
    paid_by: str | None
    shares: tuple[tuple[str, Fraction], ...]
    extra: tuple[str, ...] = ()


RecordDetail = MahjongView | K510View | KongView | FreeView | FeeView


@dataclass(frozen=True)
class HandView:
    """A recorded hand, kong, round or transfer: its payments and what it was scored from."""

    event_id: int
    hand_no: int | None
    kind: str  # "hand" | "kong" | "pay" | "fee"
    game: str
    text: str
    at: datetime
    undone: bool
    recorded_by: str
    payments: tuple[Payment, ...]
    detail: RecordDetail
    names: tuple[str, ...] = ()  # the players seated at it, in seat order (names as now)
    table_id: int | None = None  # hand numbers count per table
    edited: bool = False  # corrected in place (/edit): `/history` marks it ✎
    # What the Mini App's ✎ Edit fills its form from: the record's content (`repeats.content`:
    # players by id), the ids seated at it, and its version (a correction's id, else its own)
    content: Any = field(default=None, compare=False, hash=False)
    seat_ids: tuple[int, ...] = ()
    version: int | None = None

    @property
    def net(self) -> tuple[tuple[str, Fraction | int], ...]:
        """Each player's net for this record: the seated players in seat order (0 included),
        then anyone else its payments name; a kong (settled with its hand) has none. Whole
        points (mahjong's) stay ints: exact, and cheaper than `Fraction`s."""
        totals: dict[str, Fraction | int] = dict.fromkeys(self.names, 0)
        for p in self.payments:
            if p.payer is not None:
                totals[p.payer] = totals.get(p.payer, 0) - p.amount
            if p.payee is not None:
                totals[p.payee] = totals.get(p.payee, 0) + p.amount
        return tuple(totals.items())


def seat_ids(event: EventRow) -> list[int]:
    """The players seated at a record, as its data names them (none before they were kept)."""
    return [pid for pid in event.data.get("seats") or () if isinstance(pid, int)]


def view_of(
    event: EventRow, transfers: Sequence[TransferRow], names: Mapping[int, str]
) -> HandView:
    """The view of `event` with its `transfers`, players named by `names` (id → name now)."""

    def name(pid: int | None) -> str | None:
        return None if pid is None else names.get(pid, "?")

    data = event.data
    seats, shown = data.get("seats"), data.get("names") or ()
    if seats and len(seats) == len(shown):  # names as they are now (/rename, /merge)
        shown = [names.get(pid, old) for pid, old in zip(seats, shown, strict=True)]
    return HandView(
        event_id=event.id,
        hand_no=event.hand_no,
        kind=event.kind,
        game=event.game,
        text=event.text,
        at=event.created_at,
        undone=event.undone_by is not None,
        recorded_by=event.recorded_by_name,
        payments=tuple(_payment(t, name(t.payer_id), name(t.payee_id)) for t in transfers),
        detail=_detail(event, names),
        names=tuple(shown),
        table_id=event.table_id,
        edited=bool(data.get("edits")),
        content=data.get("same"),
        seat_ids=tuple(seat_ids(event)),
        version=(data.get("edits") or [event.id])[-1],
    )


def _payment(t: TransferRow, payer: str | None, payee: str | None) -> Payment:
    detail = t.detail or {}
    if t.reason == "kong":
        return Payment(payer, payee, t.amount, t.reason, kong=KongKind(detail["kind"]))
    if t.reason in ("win", "sealed"):
        value = hand_value(detail)
        return Payment(payer, payee, t.amount, t.reason, value, bool(detail.get("sisuang")))
    return Payment(payer, payee, t.amount, t.reason)


def _detail(event: EventRow, names: Mapping[int, str]) -> RecordDetail:
    data = event.data
    if event.kind == EventKind.KONG:
        return KongView(KongKind(data["kong"]["kind"]))
    if event.kind == EventKind.FEE:
        return _fee(data, names)
    if event.kind == EventKind.PAY or event.game == Game.FREE:
        return FreeView(str(data.get("unit", "")))
    if event.game == Game.MAHJONG:
        return MahjongView(tuple(_win(win, names) for win in data.get("wins", ())))
    return _k510(data)


def _fee(data: Mapping[str, Any], names: Mapping[int, str]) -> FeeView:
    payer = data.get("payer")
    return FeeView(
        what=str(data.get("what", "")),
        amount=Fraction(data.get("amount", "0")),
        paid_by=names.get(payer, "?") if isinstance(payer, int) else None,
        shares=tuple(
            (names.get(int(pid), "?"), Fraction(share))
            for pid, share in (data.get("shares") or {}).items()
        ),
        extra=tuple(names.get(pid, "?") for pid in data.get("extra") or ()),
    )


def _win(win: Mapping[str, Any], names: Mapping[int, str]) -> WinView:
    tiles = win.get("tiles")
    shown = None
    if tiles:
        readings, written = int(tiles.get("readings", 1)), tiles.get("written")
        shown = TilesView(str(tiles.get("hand", "")), str(tiles["reading"]), readings, written)
    winner = win.get("winner")
    return WinView(
        winner=names.get(winner, "?") if isinstance(winner, int) else "?",
        value=hand_value(win["value"]),
        tiles=shown,
        unsaid=bool(win.get("unsaid", False)),
    )


def hand_value(stored: Mapping[str, Any]) -> HandValue:
    """A win's arithmetic as the ledger keeps it (`as_record` of scoring's `HandValue`)."""
    return HandValue(
        how=WinType(stored["how"]),
        pattern=Pattern(stored["pattern"]),
        groups=int(stored["groups"]),
        qingyise=bool(stored["qingyise"]),
        menqing=bool(stored["menqing"]),
        quanqiuren=bool(stored["quanqiuren"]),
        k=int(stored["k"]),
        base=int(stored["base"]),
        unit=int(stored["unit"]),
        chain=int(stored.get("chain", 1)),
        formula=Formula(stored["formula"]),
        value=int(stored.get("value", 0)),
    )


def _k510(data: Mapping[str, Any]) -> K510View:
    table, held, order = (tuple(data.get(k) or ()) for k in ("table", "held", "order"))
    this_hand = card_points(Report510k(table, order, held)) if table else ()
    marathon = data.get("marathon")
    stored = data.get("result")
    result = None
    if stored is not None:
        team = stored.get("team_points")
        result = Result510k(
            card_points=tuple(stored["card_points"]),
            team_points=None if team is None else (team[0], team[1]),
            winner=int(stored["winner"]),
            ranking=tuple(stored.get("ranking") or ()),
            doubled=bool(stored["doubled"]),
            bonus=Fraction(stored["bonus"]),
            scores=tuple(Fraction(s) for s in stored.get("scores") or ()),
            incomplete=bool(stored["incomplete"]),
        )
    return K510View(
        card_points=this_hand,
        reported=sum(table) + sum(held),
        result=result,
        marathon_hands=None if marathon is None else int(marathon["state"]["hands"]),
        marathon_over=marathon is not None and bool(marathon["finished"]),
    )
