"""The statements of every write, in plain SQL (`storage.sql`): lock the chat, check the update,
find the season, the open table and its players and the table's latest records, then append
the event, its transfers, the balances and the update's claim. About a dozen statements for a
hand, 2–13 µs each on SQLite. The caller owns the transaction; the less frequent use cases go
through the ORM (`storage.repository`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from fractions import Fraction
from typing import Any, Protocol

from storage.rows import ChatRow, EventRow, PlayerRow, SeasonRow, TableRow, TransferRow
from storage.sql import Row, Sql, placeholders

CHAT = "id, lang, stake, sisuang, zerosum, next_seq, next_hand_no"
TABLE = "id, season_id, game, marathon, sisuang, zerosum, seats, dealer"
EVENT = (
    "id, chat_id, season_id, table_id, seq, hand_no, kind, game, text, data, recorded_by,"
    " recorded_by_name, created_at, undone_by"
)
KONGS_AND_HANDS = EVENT.replace(" data,", " CASE WHEN kind = 'kong' THEN data END,")
TAIL_PAGES = (2, 16)  # rows read: the newest first (usually a hand), then more at a time
NEWEST = 2**62  # above every event number


class TransferLike(Protocol):
    """A transfer as written (`TransferRow`) or as read by the ORM (`models.Transfer`)."""

    payer_id: int | None
    payee_id: int | None
    amount: Fraction | int


def _chat(row: Row) -> ChatRow:
    id_, lang, stake, sisuang, zerosum, next_seq, next_hand_no = row
    return ChatRow(
        id_,
        lang,
        None if stake is None else Fraction(stake),
        bool(sisuang),
        bool(zerosum),
        next_seq,
        next_hand_no,
    )


def lock_chat(db: Sql, chat_id: int) -> ChatRow:
    """The chat's row, created if new and locked until the transaction ends (PostgreSQL: the
    upsert takes the row lock; SQLite: the writer already holds the database lock, so an
    existing row is only read)."""
    if not db.pg:
        found = get_chat(db, chat_id)
        if found is not None:
            return found
    row = db.row(
        "INSERT INTO chat (id, sisuang, zerosum, next_seq, next_hand_no, created_at)"
        " VALUES (?, ?, ?, 1, 1, ?) ON CONFLICT (id) DO UPDATE SET next_seq = chat.next_seq"
        f" RETURNING {CHAT}",
        (chat_id, False, False, db.stamp()),
    )
    assert row is not None
    return _chat(row)


def get_chat(db: Sql, chat_id: int) -> ChatRow | None:
    row = db.row(f"SELECT {CHAT} FROM chat WHERE id = ?", (chat_id,))
    return None if row is None else _chat(row)


def earlier_claim(db: Sql, update_id: int) -> tuple[int | None] | None:
    """How an update was processed before: `(event id,)` (None: it recorded no event); None
    if it is new. Asked under the chat's lock, so a concurrent delivery has committed."""
    row = db.row("SELECT event_id FROM processed_update WHERE update_id = ?", (update_id,))
    return None if row is None else (row[0],)


def claim_update(db: Sql, update_id: int, chat_id: int, event_id: int | None) -> None:
    """Mark an update processed, with the event it recorded, in the same transaction (a second
    claim of the same update fails the transaction: nothing is recorded twice)."""
    db.run(
        "INSERT INTO processed_update (update_id, chat_id, event_id, processed_at)"
        " VALUES (?, ?, ?, ?)",
        (update_id, chat_id, event_id, db.stamp()),
    )


def prune_updates(db: Sql, older_than: timedelta) -> None:
    """Forget processed update ids older than `older_than` (Telegram reuses ids after a
    week without updates; it redelivers for a day at most)."""
    db.run(
        "DELETE FROM processed_update WHERE processed_at < ?", (db.when(db.moment - older_than),)
    )


def current_season(db: Sql, chat_id: int, *, create: bool = False) -> SeasonRow | None:
    row = db.row(
        "SELECT id, number FROM season WHERE chat_id = ? AND archived_at IS NULL"
        " ORDER BY number DESC LIMIT 1",
        (chat_id,),
    )
    if row is None and create:
        row = db.row(
            "INSERT INTO season (chat_id, number, opened_at) VALUES (?, 1, ?) RETURNING id, number",
            (chat_id, db.stamp()),
        )
    return None if row is None else SeasonRow(*row)


def open_table(db: Sql, chat_id: int, thread_id: int) -> TableRow | None:
    row = db.row(
        f"SELECT {TABLE} FROM game_table WHERE chat_id = ? AND thread_id = ? AND closed_at IS NULL",
        (chat_id, thread_id),
    )
    if row is None:
        return None
    id_, season_id, game, marathon, sisuang, zerosum, seats, dealer = row
    return TableRow(
        id_,
        season_id,
        game,
        bool(marathon),
        bool(sisuang),
        bool(zerosum),
        db.json_out(seats),
        dealer,
    )


def set_dealer(db: Sql, table_id: int, dealer: int) -> None:
    db.run("UPDATE game_table SET dealer = ? WHERE id = ?", (dealer, table_id))


def players_by_id(db: Sql, ids: Iterable[int]) -> dict[int, PlayerRow]:
    wanted = list(set(ids))
    if not wanted:
        return {}
    rows = db.rows(
        f"SELECT id, name, user_id, username FROM player WHERE id IN ({placeholders(len(wanted))})",
        wanted,
    )
    return {row[0]: PlayerRow(*row) for row in rows}


def _event(db: Sql, row: Row) -> EventRow:
    event = EventRow(*row)
    event.data = db.json_out(event.data) if event.data is not None else {}
    event.created_at = db.when_out(event.created_at)
    return event


def live_tail(db: Sql, table_id: int, season_id: int) -> list[EventRow]:
    """The table's live hands and kongs of the season, newest first, down to and including its
    newest hand: the kongs of the hand being played (with their data), and the hand before
    them (without: it is not needed, and it is the biggest)."""
    tail: list[EventRow] = []
    before, page = NEWEST, TAIL_PAGES[0]
    while True:
        rows = db.rows(
            f"SELECT {KONGS_AND_HANDS} FROM event WHERE table_id = ? AND season_id = ? AND seq < ?"
            " AND kind IN ('hand', 'kong') AND undone_by IS NULL ORDER BY seq DESC LIMIT ?",
            (table_id, season_id, before, page),
        )
        for row in rows:
            tail.append(_event(db, row))
            if tail[-1].kind == "hand":
                return tail
        if len(rows) < page:
            return tail
        before, page = tail[-1].seq, TAIL_PAGES[1]


def last_live_hand(db: Sql, table_id: int, season_id: int) -> EventRow | None:
    """The table's newest live hand of the season, with its data."""
    row = db.row(
        f"SELECT {EVENT} FROM event WHERE table_id = ? AND season_id = ? AND kind = 'hand'"
        " AND undone_by IS NULL ORDER BY seq DESC LIMIT 1",
        (table_id, season_id),
    )
    return None if row is None else _event(db, row)


def add_event(
    db: Sql,
    chat: ChatRow,
    *,
    season_id: int,
    table_id: int | None,
    kind: str,
    game: str,
    text: str,
    data: dict[str, Any],
    recorded_by: int | None,
    recorded_by_name: str,
) -> EventRow:
    """Append an event numbered in the chat (a hand also takes the next hand number); the
    chat's row is locked, so the numbers are gapless."""
    hand = kind == "hand"
    seq, hand_no = chat.next_seq, (chat.next_hand_no if hand else None)
    event_id = db.insert(
        "INSERT INTO event (chat_id, season_id, table_id, seq, hand_no, kind, game, text, data,"
        " recorded_by, recorded_by_name, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            chat.id,
            season_id,
            table_id,
            seq,
            hand_no,
            kind,
            game,
            text,
            db.json_in(data),
            recorded_by,
            recorded_by_name,
            db.stamp(),
        ),
    )
    chat.next_seq += 1
    if hand:
        chat.next_hand_no += 1
    db.run(
        "UPDATE chat SET next_seq = ?, next_hand_no = ? WHERE id = ?",
        (chat.next_seq, chat.next_hand_no, chat.id),
    )
    return EventRow(
        event_id,
        chat.id,
        season_id,
        table_id,
        seq,
        hand_no,
        kind,
        game,
        text,
        data,
        recorded_by,
        recorded_by_name,
        db.moment,
    )


def add_transfers(
    db: Sql,
    event_id: int,
    transfers: Sequence[TransferRow],
    *,
    season_id: int,
    unit: str,
    seated: Iterable[int],
) -> None:
    """Write a hand's transfers and move the season balances by them; every seated player
    gets a balance row (zero at first) so standings list them."""
    details: dict[int, str] = {}  # a win's payers share one detail: encoded once
    db.many(
        "INSERT INTO transfer (event_id, season_id, unit, payer_id, payee_id, amount, reason,"
        " detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                event_id,
                t.season_id,
                t.unit,
                t.payer_id,
                t.payee_id,
                str(t.amount),
                t.reason,
                details.get(id(t.detail)) or details.setdefault(id(t.detail), db.json_in(t.detail)),
            )
            for t in transfers
        ],
    )
    move_balances(db, season_id, unit, _deltas(transfers, 1, dict.fromkeys(seated, 0)))


def revert_transfers(
    db: Sql, transfers: Sequence[TransferLike], *, season_id: int, unit: str
) -> None:
    """An undone record's transfers leave the season balances."""
    move_balances(db, season_id, unit, _deltas(transfers, -1, {}))


def _deltas(
    transfers: Sequence[TransferLike], sign: int, deltas: dict[int, Fraction | int]
) -> dict[int, Fraction | int]:
    """Each player's balance change by `transfers` (sign -1: by their reversal)."""
    for t in transfers:
        if t.payer_id is not None:
            deltas[t.payer_id] = deltas.get(t.payer_id, 0) - sign * t.amount
        if t.payee_id is not None:
            deltas[t.payee_id] = deltas.get(t.payee_id, 0) + sign * t.amount
    return deltas


def _exact(text: str) -> Fraction | int:
    """A stored amount ("45/2" or "-3"); whole numbers stay ints (exact, and cheaper)."""
    return Fraction(text) if "/" in text else int(text)


def move_balances(db: Sql, season_id: int, unit: str, deltas: Mapping[int, Fraction | int]) -> None:
    """Add `deltas` (by player id) to the season's cached balances: one read, one upsert."""
    if not deltas:
        return
    rows = db.rows(
        "SELECT player_id, amount FROM balance WHERE season_id = ? AND unit = ?"
        f" AND player_id IN ({placeholders(len(deltas))})",
        (season_id, unit, *deltas),
    )
    have = {pid: _exact(amount) for pid, amount in rows}
    db.many(
        "INSERT INTO balance (season_id, player_id, unit, amount) VALUES (?, ?, ?, ?)"
        " ON CONFLICT (season_id, player_id, unit) DO UPDATE SET amount = excluded.amount",
        [
            (season_id, pid, unit, str(have.get(pid, 0) + delta))
            for pid, delta in deltas.items()
            if delta or pid not in have
        ],
    )
