"""The append-only ledger: events (hands, kongs, undos), their transfers, and the season
balances cached beside them. About a dozen statements record a hand, 2–13 µs each on SQLite."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from fractions import Fraction
from typing import Any

from scoring.games import EventKind
from storage.gateway import chats, marks
from storage.gateway.players import PLAYER
from storage.rows import BalanceRow, ChatRow, EventRow, PlayerRow, TransferRow
from storage.sql import Row, Sql, Statement, insert_rows, placeholders
from storage.types import exact_amount

EVENT = (
    "id, chat_id, season_id, table_id, seq, hand_no, kind, game, text, data, recorded_by,"
    " recorded_by_name, created_at, undone_by"
)
# A table's tail: the kongs' data (they are replayed), not the hands' (the biggest rows).
KONGS_AND_HANDS = EVENT.replace(
    " data,", f" CASE WHEN kind = '{EventKind.KONG.value}' THEN data END,"
)
TRANSFER = "event_id, season_id, unit, payer_id, payee_id, amount, reason, detail"
SEATED = ", ".join(f"p.{column}" for column in PLAYER.split(", "))  # a player's, joined
RECORDS = (EventKind.HAND, EventKind.KONG, EventKind.PAY)  # what /undo reverts
NUMBERED = (EventKind.HAND, EventKind.PAY)  # what takes a hand number: /history's records
TAIL_PAGES = (2, 16)  # rows read: the newest first (usually a hand), then more at a time
NEWEST = 2**62  # above every event number, and every LIMIT
EVENT_COLUMNS = (  # what a new event is written with (its id aside)
    "chat_id, season_id, table_id, seq, hand_no, kind, game, text, data, recorded_by,"
    " recorded_by_name, created_at"
)
EVENT_WIDTH = len(EVENT_COLUMNS.split(", "))
# A table's next hand number in a season (served by the unique index on those three columns).
NEXT_HAND_NO = (
    "(SELECT COALESCE(MAX(hand_no), 0) + 1 FROM event WHERE table_id = ? AND season_id = ?)"
)


def _event(db: Sql, row: Row) -> EventRow:
    event = EventRow(*row)
    event.data = db.json_out(event.data) if event.data is not None else {}
    event.created_at = db.when_out(event.created_at)
    return event


def add_event(
    db: Sql,
    chat: ChatRow,
    *,
    season_id: int,
    table_id: int | None,
    kind: EventKind,
    game: str,
    text: str,
    data: dict[str, Any],
    recorded_by: int | None,
    recorded_by_name: str,
) -> EventRow:
    """Append an event numbered in the chat; a hand (or a transfer) also takes its table's next
    hand number in the season (1, 2, …). The chat's row is locked, so both stay gapless. Its
    time is the write's `db.moment`, given rather than left to the schema: the reply shows it
    before it is read back, and a redelivered update's reply reads it back (SQLite's
    CURRENT_TIMESTAMP keeps whole seconds). SQLite: one statement. PostgreSQL: the id and the
    hand number are read first, then the row is written and not read back, so the read can be
    sent ahead with the chat's lock (`storage.read_ahead`) and nothing waits for the server."""
    hand = kind in NUMBERED
    seq = chat.next_seq
    rest = (kind.value, game, text, db.json_in(data), recorded_by, recorded_by_name, db.stamp())
    if db.pg:
        row = db.row(
            "SELECT nextval(pg_get_serial_sequence('event', 'id')), "
            + (NEXT_HAND_NO if hand else "NULL"),
            (table_id, season_id) if hand else (),
        )
        assert row is not None
        db.run(
            f"INSERT INTO event (id, {EVENT_COLUMNS}) VALUES ({placeholders(1 + EVENT_WIDTH)})",
            (row[0], chat.id, season_id, table_id, seq, row[1], *rest),
        )
    else:
        row = db.row(
            f"INSERT INTO event ({EVENT_COLUMNS}) VALUES (?, ?, ?, ?, "
            + (NEXT_HAND_NO if hand else "NULL")
            + ", ?, ?, ?, ?, ?, ?, ?) RETURNING id, hand_no",
            (chat.id, season_id, table_id, seq, *((table_id, season_id) if hand else ()), *rest),
        )
    assert row is not None
    event_id, hand_no = row
    marks.mark(db, season_id, seq)
    chat.next_seq += 1
    chats.save_counters(db, chat)
    return EventRow(
        event_id,
        chat.id,
        season_id,
        table_id,
        seq,
        hand_no,
        kind.value,
        game,
        text,
        data,
        recorded_by,
        recorded_by_name,
        db.moment,
    )


def mark_undone(db: Sql, event_id: int, undo_id: int) -> None:
    """The one change a recorded event ever sees: the undo that reverted it."""
    db.run("UPDATE event SET undone_by = ? WHERE id = ?", (undo_id, event_id))


def event_by_id(db: Sql, event_id: int) -> EventRow | None:
    row = db.row(f"SELECT {EVENT} FROM event WHERE id = ?", (event_id,))
    return None if row is None else _event(db, row)


def last_live_event(
    db: Sql, table_id: int, season_id: int, kinds: Sequence[EventKind] = RECORDS
) -> EventRow | None:
    """The table's newest event of the season of these kinds that is not undone, with its data."""
    row = db.row(
        f"SELECT {EVENT} FROM event WHERE table_id = ? AND season_id = ?"
        f" AND kind IN ({placeholders(len(kinds))}) AND undone_by IS NULL"
        " ORDER BY seq DESC LIMIT 1",
        (table_id, season_id, *(k.value for k in kinds)),
    )
    return None if row is None else _event(db, row)


def hand_by_number(db: Sql, table_id: int, season_id: int, hand_no: int) -> EventRow | None:
    """A table's hand of the season by its number, undone or not."""
    row = db.row(
        f"SELECT {EVENT} FROM event WHERE table_id = ? AND season_id = ? AND hand_no = ?",
        (table_id, season_id, hand_no),
    )
    return None if row is None else _event(db, row)


def kongs_of_hand(db: Sql, hand: EventRow) -> list[EventRow]:
    """The live kongs a hand settled: its table's, after the live hand before it."""
    rows = db.rows(
        f"SELECT {EVENT} FROM event WHERE table_id = ? AND season_id = ? AND kind = ?"
        " AND undone_by IS NULL AND seq < ? AND seq > COALESCE((SELECT MAX(seq) FROM event"
        " WHERE table_id = ? AND season_id = ? AND kind = ? AND undone_by IS NULL AND seq < ?),"
        " 0) ORDER BY seq",
        (
            hand.table_id,
            hand.season_id,
            EventKind.KONG.value,
            hand.seq,
            hand.table_id,
            hand.season_id,
            EventKind.HAND.value,
            hand.seq,
        ),
    )
    return [_event(db, row) for row in rows]


def live_tail(db: Sql, table_id: int, season_id: int) -> list[EventRow]:
    """The table's live hands and kongs of the season, newest first, down to and including its
    newest hand: the kongs of the hand being played (with their data), and the hand before
    them (without: it is not needed, and it is the biggest)."""
    tail: list[EventRow] = []
    before, page = NEWEST, TAIL_PAGES[0]
    while True:
        rows = db.rows(
            f"SELECT {KONGS_AND_HANDS} FROM event WHERE table_id = ? AND season_id = ? AND seq < ?"
            " AND kind IN (?, ?) AND undone_by IS NULL ORDER BY seq DESC LIMIT ?",
            (table_id, season_id, before, EventKind.HAND.value, EventKind.KONG.value, page),
        )
        for row in rows:
            tail.append(_event(db, row))
            if tail[-1].kind == EventKind.HAND:
                return tail
        if len(rows) < page:
            return tail
        before, page = tail[-1].seq, TAIL_PAGES[1]


def hands(db: Sql, season_id: int, *, limit: int | None = None) -> list[EventRow]:
    """The season's hands and transfers, undone ones too, newest first."""
    rows = db.rows(
        f"SELECT {EVENT} FROM event WHERE season_id = ? AND kind IN (?, ?)"
        " ORDER BY seq DESC LIMIT ?",
        (season_id, *(k.value for k in NUMBERED), NEWEST if limit is None else limit),
    )
    return [_event(db, row) for row in rows]


def _transfers(db: Sql, rows: Iterable[Row]) -> dict[int, list[TransferRow]]:
    """Transfers read back, by event id, in recorded order."""
    out: dict[int, list[TransferRow]] = {}
    for event_id, season_id, unit, payer_id, payee_id, amount, reason, detail in rows:
        out.setdefault(event_id, []).append(
            TransferRow(
                season_id, unit, payer_id, payee_id, Fraction(amount), reason, db.json_out(detail)
            )
        )
    return out


def transfers_of(db: Sql, event_ids: Sequence[int]) -> dict[int, list[TransferRow]]:
    """These events' transfers, by event id."""
    if not event_ids:
        return {}
    return _transfers(
        db,
        db.rows(
            f"SELECT {TRANSFER} FROM transfer WHERE event_id IN ({placeholders(len(event_ids))})"
            " ORDER BY id",
            list(event_ids),
        ),
    )


def season_transfers(db: Sql, season_id: int) -> dict[int, list[TransferRow]]:
    """Every transfer of the season (undone ones too), by event id."""
    return _transfers(
        db,
        db.rows(f"SELECT {TRANSFER} FROM transfer WHERE season_id = ? ORDER BY id", (season_id,)),
    )


def add_transfers(
    db: Sql,
    event_id: int,
    transfers: Sequence[TransferRow],
    *,
    season_id: int,
    unit: str,
    seated: Iterable[int],
    balances: Mapping[int, Fraction | int | None] | None = None,
) -> dict[int, Fraction | int]:
    """Write a hand's transfers and move the season balances by them; every seated player
    gets a balance row (zero at first) so standings list them. `balances` are those read
    before (`seated_with_balances`; None: no row yet); any other is read here. Both are
    written in one statement on PostgreSQL. Returns the balances after it, by player id."""
    details: dict[int, str] = {}  # a win's payers share one detail: encoded once
    deltas = _deltas(transfers, 1, dict.fromkeys(seated, 0))
    upsert, after = _moved_balances(db, season_id, unit, deltas, balances or {})
    db.run_all(
        (
            insert_rows(
                f"transfer ({TRANSFER})",
                [
                    (
                        event_id,
                        t.season_id,
                        t.unit,
                        t.payer_id,
                        t.payee_id,
                        str(t.amount),
                        t.reason,
                        details.get(id(t.detail))
                        or details.setdefault(id(t.detail), db.json_in(t.detail)),
                    )
                    for t in transfers
                ],
            ),
            upsert,
        )
    )
    return after


def revert_transfers(
    db: Sql, transfers: Sequence[TransferRow], *, season_id: int, unit: str
) -> None:
    """An undone record's transfers leave the season balances."""
    _move_balances(db, season_id, unit, _deltas(transfers, -1, {}))


def _deltas(
    transfers: Sequence[TransferRow], sign: int, deltas: dict[int, Fraction | int]
) -> dict[int, Fraction | int]:
    """Each player's balance change by `transfers` (sign -1: by their reversal)."""
    for t in transfers:
        if t.payer_id is not None:
            deltas[t.payer_id] = deltas.get(t.payer_id, 0) - sign * t.amount
        if t.payee_id is not None:
            deltas[t.payee_id] = deltas.get(t.payee_id, 0) + sign * t.amount
    return deltas


def _move_balances(
    db: Sql, season_id: int, unit: str, deltas: Mapping[int, Fraction | int]
) -> None:
    """Add `deltas` (by player id) to the season's cached balances."""
    db.run_all((_moved_balances(db, season_id, unit, deltas, {})[0],))


def _moved_balances(
    db: Sql,
    season_id: int,
    unit: str,
    deltas: Mapping[int, Fraction | int],
    known: Mapping[int, Fraction | int | None],
) -> tuple[Statement | None, dict[int, Fraction | int]]:
    """The upsert that adds `deltas` (by player id) to the season's cached balances (of every
    row at once: the players are distinct), and the balances after it. What it adds to is
    `known` (None: no row), or read first."""
    have = {pid: amount for pid, amount in known.items() if amount is not None}
    unknown = [pid for pid in deltas if pid not in known]
    if unknown:
        rows = db.rows(
            "SELECT player_id, amount FROM balance WHERE season_id = ? AND unit = ?"
            f" AND player_id IN ({placeholders(len(unknown))})",
            (season_id, unit, *unknown),
        )
        have.update((pid, exact_amount(amount)) for pid, amount in rows)
    after = {pid: have.get(pid, 0) + delta for pid, delta in deltas.items()}
    upsert = insert_rows(
        "balance (season_id, player_id, unit, amount)",
        [
            (season_id, pid, unit, str(after[pid]))
            for pid, delta in deltas.items()
            if delta or pid not in have
        ],
        " ON CONFLICT (season_id, player_id, unit) DO UPDATE SET amount = excluded.amount",
    )
    return upsert, after


def seated_with_balances(
    db: Sql, seats: Sequence[int], season_id: int, unit: str
) -> tuple[list[PlayerRow], dict[int, Fraction | int | None]]:
    """A table's players in seat order, and their balances in `unit` this season (None: no
    row yet), in one statement: what a hand reads before it writes."""
    rows = db.rows(
        f"SELECT {SEATED}, b.amount FROM player p LEFT JOIN balance b ON b.player_id = p.id"
        f" AND b.season_id = ? AND b.unit = ? WHERE p.id IN ({placeholders(len(seats))})",
        (season_id, unit, *seats),
    )
    found = {row[0]: row for row in rows}
    return (
        [PlayerRow(*found[pid][:-1]) for pid in seats],
        {pid: None if found[pid][-1] is None else exact_amount(found[pid][-1]) for pid in seats},
    )


def balances(db: Sql, season_id: int) -> list[BalanceRow]:
    """The season's balances, every unit."""
    rows = db.rows("SELECT player_id, unit, amount FROM balance WHERE season_id = ?", (season_id,))
    return [BalanceRow(pid, unit, Fraction(amount)) for pid, unit, amount in rows]


# --- a season's whole ledger, streamed (/chart, /export): lean rows, never all in memory ---


def stream_live_payments(
    db: Sql, season_id: int
) -> Iterator[tuple[int, str, str | None, int | None, int | None, Fraction | int | None]]:
    """(event id, game, unit, payer, payee, amount) of the season's live hands and transfers in
    order, one row per transfer (a hand without any: one row of Nones), streamed."""
    for event_id, game, unit, payer, payee, amount in db.stream(
        "SELECT e.id, e.game, t.unit, t.payer_id, t.payee_id, t.amount FROM event e"
        " LEFT JOIN transfer t ON t.event_id = e.id"
        " WHERE e.season_id = ? AND e.kind IN (?, ?) AND e.undone_by IS NULL"
        " ORDER BY e.seq, t.id",
        (season_id, *(k.value for k in NUMBERED)),
    ):
        yield event_id, game, unit, payer, payee, None if amount is None else exact_amount(amount)


def export_size(db: Sql, season_id: int) -> tuple[int, int, range]:
    """(payments, hands and transfers, the range of their seq) of the season, undone ones too."""
    found = db.row(
        "SELECT count(t.id), count(DISTINCT e.id), min(e.seq), max(e.seq) FROM event e"
        " JOIN transfer t ON t.event_id = e.id WHERE e.season_id = ? AND e.kind IN (?, ?)",
        (season_id, *(k.value for k in NUMBERED)),
    )
    rows, hands, first, last = found if found is not None else (0, 0, 0, 0)
    return int(rows or 0), int(hands or 0), range(int(first or 0), int(last or 0) + 1)


ExportLine = tuple[str, int | None, str, str, str | None, str | None, str, str, str, int]
EXPORT_BATCH = 5000  # rows fetched at a time (a round trip each on PostgreSQL)


def stream_export(db: Sql, chat_id: int, season_id: int, seqs: range) -> Iterator[ExportLine]:
    """(UTC time to the second as "YYYY-MM-DD HH:MM:SS", hand number, game, unit, payer's name
    (None: the table), payee's name, amount as stored ("45/2", "-3"), reason, recorded by,
    undone 1 or 0) of every payment of the chat's season's hands and transfers in `seqs`,
    undone ones too, in recorded order. The rows are the driver's, as it returns them: the
    database does the per-row work (the names, the time's text), Python none.

    The events are read in the chat's seq order (its unique index), so nothing is sorted:
    `+e.season_id` keeps the planner off the (season, kind, seq) index, whose order is by
    kind first (a sort of the whole season before the first row, in memory up to the cache)."""
    at = (
        "to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS')"
        if db.pg
        else "substr(e.created_at, 1, 19)"  # stored as UTC text, "YYYY-MM-DD HH:MM:SS.ffffff"
    )
    return db.stream(
        f"SELECT {at}, e.hand_no, e.game, t.unit, payer.name, payee.name, t.amount, t.reason,"
        " e.recorded_by_name, CASE WHEN e.undone_by IS NULL THEN 0 ELSE 1 END FROM event e"
        " JOIN transfer t ON t.event_id = e.id"
        " LEFT JOIN player payer ON payer.id = t.payer_id"
        " LEFT JOIN player payee ON payee.id = t.payee_id"
        " WHERE e.chat_id = ? AND e.seq BETWEEN ? AND ? AND +e.season_id = ? AND e.kind IN (?, ?)"
        " ORDER BY e.seq, t.id",
        (chat_id, seqs.start, seqs.stop - 1, season_id, *(k.value for k in NUMBERED)),
        EXPORT_BATCH,
    )
