"""Mahjong use cases: /gang records a kong; /hu and /liuju end the hand and settle it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from scoring import ERROR_CODES, PendingKongs
from scoring.errors import ScoringError
from scoring.games import EventKind, Game, Unit
from scoring.mahjong import settle_hand
from scoring.mahjong_checks import menqing_unsaid
from scoring.mahjong_model import (
    HandValue,
    Kong,
    KongKind,
    KongReason,
    MahjongHand,
    MahjongSettlement,
    Reason,
    SealedReason,
    Win,
    WinType,
)
from service import players as who
from service import repeats
from service.errors import N_, ServiceError
from service.hand_tiles import NO_TILES, HandsRead, read_hands
from service.ledger import fresh_view, pay_out, record, recorded_view, table_tail
from service.records import as_record
from service.replies import Recorded, TableView
from service.requests import Gang, Hu, HuClause, Liuju
from service.tables import require_table
from service.unit import Tx
from storage.gateway import ledger as book
from storage.gateway import reminders, tables
from storage.gateway.ledger import Seated
from storage.models import PlayerRow, TableRow, TransferRow

UNIT = Unit.MAHJONG
MAX_KONGS = 4  # a player's kongs in one hand: its four sets
MENQING = "menqing"  # the reminder's hint (`storage.gateway.reminders`)
USAGE_GANG = N_("/gang <player> an | ming <from> | bu <from>")


def gang(tx: Tx, req: Gang) -> Recorded:
    table = require_table(tx, Game.MAHJONG)
    people = who.seated(tx, table)
    konger = who.seat_of(tx, table, req.player, people)
    source = None if req.source is None else who.seat_of(tx, table, req.source, people)
    if req.kind is KongKind.AN and source is not None:
        raise ServiceError(N_("A concealed kong has no discarder."), usage=USAGE_GANG)
    if req.kind is not KongKind.AN and source is None:
        raise ServiceError(N_("Whose tile was konged?"), usage=USAGE_GANG)
    if source == konger:
        raise ServiceError(N_("A player cannot kong his own discard."), usage=USAGE_GANG)
    pending = _pending_kongs(tx, table)  # a kong of someone who left (/sub) is not theirs
    had = sum(1 for k, stand in pending if k.konger == konger and konger not in stand)
    if had >= MAX_KONGS:
        raise ServiceError(
            N_(
                "{name} already has {n} kongs in this hand, the most a hand can hold (four sets"
                " and a pair). If one of them was wrong, /undo takes back the last record."
            ),
            name=people[konger].name,
            n=MAX_KONGS,
        )
    kong = _kong_data(Kong(konger, req.kind, source), table)
    data = {"kong": kong | {"seats": list(table.seats)}}  # who sat where: see `_kong_from`
    event = record(tx, table, EventKind.KONG, data)  # two like kongs in a row are two kongs
    return Recorded(view=fresh_view(event, [], people))


def hu(tx: Tx, req: Hu) -> Recorded:
    table = require_table(tx, Game.MAHJONG)
    seated = who.seated_with_balances(tx, table, UNIT, MENQING)
    people = seated.people
    pending = _pending_kongs(tx, table)
    # A kong made by someone who left (/sub) is theirs: never the newcomer's chain or tiles.
    recorded = [k for k, stand in pending if k.konger not in stand]
    left = tuple(k for k, stand in pending if k.konger in stand)
    tiles = read_hands(tx, table, people, req.clauses, recorded)
    kongs = PendingKongs([*recorded, *tiles.kongs])
    wins = tuple(
        tiles.apply(i, _win(tx, table, people, clause, kongs))
        for i, clause in enumerate(req.clauses)
    )
    stands = [(k, stand) for k, stand in pending if stand]
    settling = (*kongs.settling(), *left)
    same = repeats.content(tx, table, people, req)
    done = _settle(tx, table, seated, wins, settling, tiles, stands, same)
    return replace(done, **_notes(people, req.clauses, wins, recorded))


def _notes(
    people: Sequence[PlayerRow],
    clauses: Sequence[HuClause],
    wins: Sequence[Win],
    recorded: Sequence[Kong],
) -> dict[str, Any]:
    """What the rules did that the hand as typed does not show (issue 37): a self-drawn 全求人
    scored without its ×2; the kongs of a 杠上炮 / 抢杠 chain never recorded with /gang (the
    robbed kong itself is not completed: it scores nothing anyway)."""
    qqr = tuple(
        people[w.winner].name
        for c, w in zip(clauses, wins, strict=True)
        if c.quanqiuren and w.how.self_drawn
    )
    unpaid = []
    for w in wins:
        if w.discarder is None or w.how not in (WinType.GANGPAO, WinType.QIANGGANG):
            continue
        made = w.chain - (1 if w.how is WinType.QIANGGANG else 0)  # completed kongs
        had = sum(1 for k in recorded if k.konger == w.discarder)
        if w.how is WinType.QIANGGANG and w.chain_kongs:
            had = made  # the chain was read from the recorded kongs
        if made > had:
            unpaid.append((people[w.discarder].name, made - had))
    return {"qqr_self_drawn": qqr, "chain_unrecorded": tuple(unpaid)}


def liuju(tx: Tx, req: Liuju) -> Recorded:
    table = require_table(tx, Game.MAHJONG)
    seated = who.seated_with_balances(tx, table, UNIT)
    pending = _pending_kongs(tx, table)
    kongs = tuple(k for k, _ in pending)
    stands = [(k, stand) for k, stand in pending if stand]
    same = repeats.content(tx, table, seated.people, req)
    return _settle(tx, table, seated, (), kongs, stands=stands, same=same)


def _settle(
    tx: Tx,
    table: TableRow,
    seated: Seated,
    wins: tuple[Win, ...],
    kongs: tuple[Kong, ...],
    tiles: HandsRead = NO_TILES,
    stands: Sequence[tuple[Kong, StandIns]] = (),
    same: Any = None,
) -> Recorded:
    people = seated.people
    hand = MahjongHand(dealer=table.dealer, wins=wins, kongs=kongs, sisuang=table.sisuang)
    try:
        result = settle_hand(hand)
    except ScoringError as err:
        raise ServiceError(
            N_("This hand cannot be scored: {problem}"),
            problem=ERROR_CODES.get(err.code, str(err)),
            dealer=people[table.dealer].name,  # 天胡 by another: who deals
        ) from err
    unsaid = [  # 门清 not written though it may have been: the win's line says "not 门清"
        i
        for i, w in enumerate(wins)
        if menqing_unsaid(hand, w) and i not in tiles.hands  # tiles say whether it was 门清
    ]
    data = {
        "wins": [
            _win_data(w, v, table) | tiles.data(i) | ({"unsaid": True} if i in unsaid else {})
            for i, (w, v) in enumerate(zip(wins, result.values, strict=True))
        ],
        "kongs": [_kong_data(k, table, _stand_of(k, stands)) for k in kongs],
        "dealer_before": table.dealer,
        "dealer_after": result.next_dealer,
        "names": [p.name for p in people],
        "seats": list(table.seats),
    }
    winners = [people[w.winner].name for w in wins]
    event = record(tx, table, EventKind.HAND, data, tiles=tiles.column(winners), same=same)
    transfers = _transfers(tx, table, event.id, result, stands)
    pay_out(tx, table, event, transfers, unit=UNIT, balances=seated.balances)
    if result.next_dealer != table.dealer:
        table.dealer = result.next_dealer
        tables.set_dealer(tx.db, table.id, table.dealer)
    view = recorded_view(tx, event, transfers, people)
    # The long hint once per player and season: the win's line says "not 门清" every time.
    unsure = [people[wins[i].winner] for i in unsaid]
    ids = [p.id for p in unsure if p.id not in seated.reminded]
    first = reminders.first_reminders(tx.db, tx.season.id, MENQING, ids)
    remind = tuple(dict.fromkeys(p.name for p in unsure if p.id in first))
    return Recorded(view=view, dealer=people[result.next_dealer].name, not_concealed=remind)


def _win(
    tx: Tx,
    table: TableRow,
    people: Sequence[PlayerRow],
    clause: HuClause,
    kongs: PendingKongs,
) -> Win:
    def seat(ref: Any) -> int | None:
        return None if ref is None else who.seat_of(tx, table, ref, people)

    winner = who.seat_of(tx, table, clause.winner, people)
    source = seat(clause.source)
    if clause.how.needs_discarder and source is None:
        raise ServiceError(
            N_("Who paid? Write the discarder after '{how}'."),
            usage="/hu A pao C",
            how=clause.how.value,
        )
    chain_kongs: tuple[Kong, ...] = ()
    chain = clause.chain or 1
    if clause.how is WinType.GANGKAI:
        chain_kongs = _gangkai_chain(tx, table, people, clause, winner, kongs)
        chain = len(chain_kongs)
    elif clause.how is WinType.QIANGGANG and source is not None:
        chain_kongs = kongs.rob(source, chain)
    return Win(
        winner=winner,
        how=clause.how,
        discarder=source,
        pattern=clause.pattern,
        groups=clause.groups,
        qingyise=clause.qingyise,
        menqing=clause.menqing,
        quanqiuren=clause.quanqiuren,
        chain=chain,
        chain_kongs=chain_kongs,
        sealed=seat(clause.sealed),
    )


def _gangkai_chain(
    tx: Tx,
    table: TableRow,
    people: Sequence[PlayerRow],
    clause: HuClause,
    winner: int,
    kongs: PendingKongs,
) -> tuple[Kong, ...]:
    """The 杠上花 chain: given inline, or the winner's last n kongs recorded in this hand."""
    if clause.chain_kongs:
        inline = tuple(
            Kong(
                winner,
                ck.kind,
                None if ck.source is None else who.seat_of(tx, table, ck.source, people),
            )
            for ck in clause.chain_kongs
        )
        kongs.gangkai_written(winner, inline)
        return inline
    n = clause.chain or 1
    chain = kongs.gangkai(winner, n)
    if chain is None:
        raise ServiceError(
            N_("{name} has {have} kong(s) recorded in this hand, not {n}. Which kong was it?"),
            usage=N_("/hu A gangkai an | gangkai ming <from> | gangkai an bu <from>"),
            name=people[winner].name,
            have=len(kongs.pending(winner)),
            n=n,
        )
    return chain


def with_kongs(tx: Tx, view: TableView) -> TableView:
    """A mahjong table's view with the kongs recorded in the hand being played."""
    table = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if table is None or view.game != Game.MAHJONG or None in view.seats:
        return view
    kongs = tuple((k.konger, k.kind.value) for k, _ in _pending_kongs(tx, table))
    return replace(view, kongs=kongs)


#: A kong's stand-ins: seat → the player the kong names there, who left it by /sub.
StandIns = dict[int, int]


def _pending_kongs(tx: Tx, table: TableRow) -> list[tuple[Kong, StandIns]]:
    """Kongs recorded since the table's last live hand, oldest first: they belong to the
    current hand (as the write's first statement read them, while that holds)."""
    read = table_tail(tx, table)
    if read is not None:
        kongs = [data["kong"] for data in read.kongs]
    else:
        tail = book.live_tail(tx.db, table.id, tx.season.id)
        kongs = [e.data["kong"] for e in reversed(tail) if e.kind == EventKind.KONG]
    return [_kong_from(kong, table) for kong in kongs]


def _kong_data(kong: Kong, table: TableRow, stand: StandIns | None = None) -> dict[str, Any]:
    def pid(seat: int) -> int:
        return (stand or {}).get(seat, table.seats[seat])

    return {
        "konger": pid(kong.konger),
        "kind": kong.kind.value,
        "source": None if kong.source is None else pid(kong.source),
    }


def _stand_of(kong: Kong, stands: Sequence[tuple[Kong, StandIns]]) -> StandIns | None:
    return next((stand for k, stand in stands if k == kong), None)


def _kong_from(data: dict[str, Any], table: TableRow) -> tuple[Kong, StandIns]:
    """A recorded kong at today's seats, and its stand-ins. A player a pending kong names who
    left by /sub is stood in for at their seat by who took it: the kong is still theirs, paid
    by and to them when the hand ends, even where who took it had sat elsewhere when the kong
    was made. (/seats keeps everyone a pending kong names.)"""
    stand: StandIns = {}
    then = data.get("seats") or []
    named = {data["konger"], data["source"]}  # whoever sits at a leaver's seat now stands in
    # for them, unless the kong names that one too (a leaver's kong is the leaver's: issue 37)

    def seat(pid: int) -> int:
        if pid in table.seats:
            return table.seats.index(pid)
        at = then.index(pid) if pid in then else len(table.seats)
        if at < len(table.seats) and table.seats[at] not in named:
            stand[at] = pid
            return at
        raise ServiceError(
            N_(
                "A kong of this hand names someone who no longer sits at the table. Seat them"
                " again with /seats, or undo the kong with /undo, then record the hand."
            )
        )

    source = data["source"]
    kong = Kong(
        seat(data["konger"]), KongKind(data["kind"]), None if source is None else seat(source)
    )
    return kong, stand


def _win_data(win: Win, value: HandValue, table: TableRow) -> dict[str, Any]:
    def pid(seat: int | None) -> int | None:
        return None if seat is None else table.seats[seat]

    return {
        "winner": pid(win.winner),
        "discarder": pid(win.discarder),
        "sealed": pid(win.sealed),
        "chain_kongs": [_kong_data(k, table) for k in win.chain_kongs],
        "value": as_record(value),
    }


def _transfers(
    tx: Tx,
    table: TableRow,
    event_id: int,
    result: MahjongSettlement,
    stands: Sequence[tuple[Kong, StandIns]] = (),
) -> list[TransferRow]:
    out = []
    reasons: dict[int, tuple[str, dict[str, Any]]] = {}  # one per win, shared by its payers
    paid: dict[Kong, int] = {}  # kong payments seen, per kong: whose kong each one is
    for t in result.transfers:
        reason, detail = reasons.get(id(t.reason)) or reasons.setdefault(
            id(t.reason), _reason(t.reason)
        )
        stand: StandIns = {}
        if isinstance(t.reason, KongReason) and stands:
            kong = t.reason.kong
            mine = [s for k, s in stands if k == kong]
            each = 3 if kong.source is None else 1
            n = paid[kong] = paid.get(kong, -1) + 1
            stand = mine[n // each] if n // each < len(mine) else {}
        out.append(
            TransferRow(
                event_id=event_id,
                season_id=tx.season.id,
                unit=UNIT,
                payer_id=stand.get(t.payer, table.seats[t.payer]),
                payee_id=stand.get(t.payee, table.seats[t.payee]),
                amount=t.amount,  # whole points
                reason=reason,
                detail=detail,
            )
        )
    return out


def _reason(reason: Reason) -> tuple[str, dict[str, Any]]:
    if isinstance(reason, KongReason):
        return "kong", {"kind": reason.kong.kind.value}
    detail = as_record(reason.value)
    if isinstance(reason, SealedReason):
        return "sealed", {**detail, "sisuang": reason.sisuang}
    return "win", detail
