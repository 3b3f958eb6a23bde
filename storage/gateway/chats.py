"""Chats, their seasons and the updates already processed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from fractions import Fraction

from scoring.games import EventKind
from storage.gateway.tables import OPEN_T, TABLE_T, joined_table
from storage.rows import ChatRow, SeasonRow, TableRow
from storage.sql import ReadKey, Row, Sql, Statement

CHAT = "id, lang, stake, sisuang, zerosum, next_seq, tz"
CHAT_WIDTH = len(CHAT.split(", "))
SEASON = "id, number, opened_at, archived_at"
IN_PLAY = "chat_id = ? AND archived_at IS NULL ORDER BY number DESC LIMIT 1"  # one season
PROLOGUE = (  # a write's first read, under the chat's lock
    f"SELECT s.id, s.number, s.opened_at, s.archived_at, u.update_id, u.event_id, {TABLE_T}"
    f" FROM (SELECT 1) AS one LEFT JOIN season s ON s.id = (SELECT id FROM season WHERE {IN_PLAY})"
    " LEFT JOIN processed_update u ON u.update_id = ?"
    f" LEFT JOIN game_table t ON {OPEN_T}"
)
#: SQLite: the chat's row read with the prologue (see `prologue_with_chat`).
PROLOGUE_WITH_CHAT = (
    "SELECT "
    + ", ".join(f"c.{column}" for column in CHAT.split(", "))
    + ", "
    + PROLOGUE.removeprefix("SELECT ")
    + " LEFT JOIN chat c ON c.id = ?"
)


def _chat(row: Row) -> ChatRow:
    id_, lang, stake, sisuang, zerosum, next_seq, tz = row
    return ChatRow(
        id_,
        lang,
        None if stake is None else Fraction(stake),
        bool(sisuang),
        bool(zerosum),
        next_seq,
        tz,
    )


def lock_chat(db: Sql, chat_id: int) -> ChatRow:
    """The chat's row, created if new and locked until the transaction ends (PostgreSQL: the
    upsert takes the row lock; SQLite: the writer already holds the database lock, so an
    existing row is only read)."""
    return lock_chat_created(db, chat_id)[0]


def lock_chat_created(db: Sql, chat_id: int) -> tuple[ChatRow, bool]:
    """`lock_chat`, and whether the row was created just now."""
    if not db.pg:
        found = get_chat(db, chat_id)
        if found is not None:
            return found, False
    row = db.row(*_lock_statement(db, chat_id))
    assert row is not None
    return _locked(row)


def _lock_statement(db: Sql, chat_id: int) -> Statement:
    return (
        "INSERT INTO chat (id) VALUES (?)"
        f" ON CONFLICT (id) DO UPDATE SET next_seq = chat.next_seq RETURNING {CHAT}"
        + (", xmax = 0" if db.pg else ", 1"),
        (chat_id,),
    )


def _locked(row: Row) -> tuple[ChatRow, bool]:
    return _chat(row[:-1]), bool(row[-1])


def get_chat(db: Sql, chat_id: int) -> ChatRow | None:
    row = db.row(f"SELECT {CHAT} FROM chat WHERE id = ?", (chat_id,))
    return None if row is None else _chat(row)


def save_counters(db: Sql, chat: ChatRow) -> None:
    """The chat's next event number (the row is locked: it stays gapless)."""
    db.run("UPDATE chat SET next_seq = ? WHERE id = ?", (chat.next_seq, chat.id))


def save_settings(db: Sql, chat: ChatRow) -> None:
    """The chat's settings: language, stake, time zone and the default rules of new tables."""
    db.run(
        "UPDATE chat SET lang = ?, stake = ?, sisuang = ?, zerosum = ?, tz = ? WHERE id = ?",
        (
            chat.lang,
            None if chat.stake is None else str(chat.stake),
            chat.sisuang,
            chat.zerosum,
            chat.tz,
            chat.id,
        ),
    )


def claim_update(db: Sql, update_id: int, chat_id: int, event_id: int | None) -> None:
    """Mark an update processed, with the event it recorded, in the same transaction (a second
    claim of the same update fails the transaction: nothing is recorded twice)."""
    db.run(
        "INSERT INTO processed_update (update_id, chat_id, event_id) VALUES (?, ?, ?)",
        (update_id, chat_id, event_id),
    )


def prune_updates(db: Sql, older_than: timedelta) -> None:
    """Forget processed update ids older than `older_than` (Telegram reuses ids after a
    week without updates; it redelivers for a day at most). PostgreSQL: rows another
    transaction holds (pruning too) are left for later, so a write never waits here."""
    old = "processed_at < ?"
    if db.pg:
        old = f"update_id IN (SELECT update_id FROM processed_update WHERE {old}"
        old += " FOR UPDATE SKIP LOCKED)"
    db.run(f"DELETE FROM processed_update WHERE {old}", (db.when(db.moment - older_than),))


def _season(db: Sql, row: Row) -> SeasonRow:
    id_, number, opened_at, archived_at = row
    return SeasonRow(
        id_,
        number,
        db.when_out(opened_at),
        None if archived_at is None else db.when_out(archived_at),
    )


def current_season(db: Sql, chat_id: int) -> SeasonRow | None:
    """The chat's season in play."""
    row = db.row(f"SELECT {SEASON} FROM season WHERE {IN_PLAY}", (chat_id,))
    return None if row is None else _season(db, row)


def prologue(
    db: Sql, chat_id: int, thread_id: int, update_id: int | None
) -> tuple[SeasonRow, tuple[int | None] | None, TableRow | None]:
    """What every write reads first, in one statement: the chat's season in play (the first
    one, opened if there is none); how the update was processed before: `(event id,)` (None:
    it recorded no event), or None if it is new; and the open table of the chat or topic.
    Asked under the chat's lock, so a concurrent delivery of the update has committed."""
    row = db.row(PROLOGUE, (chat_id, update_id, chat_id, thread_id))
    assert row is not None
    return prologue_from(db, chat_id, row)


def prologue_with_chat(
    db: Sql, chat_id: int, thread_id: int, update_id: int | None
) -> tuple[ChatRow, SeasonRow, tuple[int | None] | None, TableRow | None] | None:
    """SQLite: the chat's row (locked: the writer holds the database's lock, see
    `lock_chat_created`) and `prologue`, in one statement; None if the chat has no row yet."""
    assert not db.pg
    row = db.row(PROLOGUE_WITH_CHAT, (chat_id, update_id, chat_id, thread_id, chat_id))
    assert row is not None
    if row[0] is None:
        return None
    return _chat(row[:CHAT_WIDTH]), *prologue_from(db, chat_id, row[CHAT_WIDTH:])


def send_lock_with_prologue(
    db: Sql, chat_id: int, thread_id: int, update_id: int | None, ahead: Sequence[ReadKey] = ()
) -> None:
    """PostgreSQL: send `lock_with_prologue_row`'s statements, read nothing yet (a batch sends
    every write's first; see `Sql.send_first`)."""
    db.send_first(*_lock_and_prologue(db, chat_id, thread_id, update_id), ahead)


def _lock_and_prologue(
    db: Sql, chat_id: int, thread_id: int, update_id: int | None
) -> tuple[Statement, Statement]:
    return _lock_statement(db, chat_id), (PROLOGUE, (chat_id, update_id, chat_id, thread_id))


def lock_with_prologue_row(
    db: Sql, chat_id: int, thread_id: int, update_id: int | None, ahead: Sequence[ReadKey] = ()
) -> tuple[ChatRow, bool, Row]:
    """PostgreSQL: `lock_chat_created`, and `prologue`'s row (for `prologue_from`), with the
    reads `ahead` (`storage.read_ahead`), in one round trip (`Sql.lock_and_read`: the prologue
    runs once the lock is held, and sees what committed before)."""
    locked, row = db.lock_and_read(*_lock_and_prologue(db, chat_id, thread_id, update_id), ahead)
    assert locked is not None and row is not None
    return *_locked(locked), row


def prologue_from(
    db: Sql, chat_id: int, row: Row
) -> tuple[SeasonRow, tuple[int | None] | None, TableRow | None]:
    season = open_season(db, chat_id, 1) if row[0] is None else _season(db, row[:4])
    return season, None if row[4] is None else (row[5],), joined_table(db, row[6:])


def season_by_number(db: Sql, chat_id: int, number: int) -> SeasonRow | None:
    row = db.row(f"SELECT {SEASON} FROM season WHERE chat_id = ? AND number = ?", (chat_id, number))
    return None if row is None else _season(db, row)


def season_number(db: Sql, season_id: int) -> int | None:
    row = db.row("SELECT number FROM season WHERE id = ?", (season_id,))
    return None if row is None else int(row[0])


def last_hand_no(db: Sql, season_id: int, table_id: int) -> int | None:
    """The number of a table's last hand or transfer of the season (undone ones too: both take
    numbers; they count per table and season), None before the first."""
    row = db.row(
        "SELECT max(hand_no) FROM event WHERE table_id = ? AND season_id = ? AND kind IN (?, ?)",
        (table_id, season_id, EventKind.HAND.value, EventKind.PAY.value),
    )
    return None if row is None or row[0] is None else int(row[0])


def seasons_with_hands(db: Sql, chat_id: int) -> list[tuple[SeasonRow, int]]:
    """The chat's seasons, first first, each with its number of hands (undone ones too), as
    kept with the season's statistics (`storage.gateway.stats`)."""
    rows = db.rows(
        f"SELECT {SEASON}, (SELECT coalesce(sum(live + undone), 0) FROM stat_hands"
        " WHERE stat_hands.season_id = season.id) FROM season WHERE chat_id = ? ORDER BY number",
        (chat_id,),
    )
    return [(_season(db, row[:4]), int(row[4])) for row in rows]


def open_season(db: Sql, chat_id: int, number: int) -> SeasonRow:
    row = db.row(
        f"INSERT INTO season (chat_id, number) VALUES (?, ?) RETURNING {SEASON}",
        (chat_id, number),
    )
    assert row is not None
    return _season(db, row)


def archive_season(db: Sql, season_id: int) -> None:
    db.run("UPDATE season SET archived_at = CURRENT_TIMESTAMP WHERE id = ?", (season_id,))
