"""Chats, their seasons and the updates already processed."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    JSON,
    Text,
    and_,
    bindparam,
    cast,
    delete,
    func,
    insert,
    select,
    type_coerce,
    update,
)
from sqlalchemy.engine import Connection, Row

from scoring.games import EventKind
from storage.gateway import Upsert, every, first, shaped
from storage.models import (
    ChatRow,
    SeasonRow,
    TableRow,
    app_link,
    chat,
    event,
    game_table,
    processed_update,
    season,
)

Earlier = tuple[int | None]  # how an update was processed before: (the event it recorded,)
RECORDS = (  # what /undo reverts
    EventKind.HAND.value,
    EventKind.KONG.value,
    EventKind.PAY.value,
    EventKind.FEE.value,
)


@dataclass(frozen=True)
class LastRecord:
    """The open table's newest hand, kong or transfer of the season (undone or not), as the
    two-minute rule compares it: its content (`data["same"]`), when, whether undone."""

    id: int
    created_at: datetime
    undone: bool
    same: Any


@dataclass(frozen=True)
class Tail:
    """What a record at the open table needs of the table's last records, read with the write's
    first statement: its last record, and the data of the kongs waiting for the hand being
    played (the live kongs after its newest live hand), oldest first."""

    table_id: int
    last: LastRecord | None
    kongs: tuple[dict[str, Any], ...]


_in_play = season.alias("in_play")
_CURRENT = (  # the chat's season in play: its open one with the highest number
    select(_in_play.c.id)
    .where(_in_play.c.chat_id == chat.c.id, _in_play.c.archived_at.is_(None))
    .order_by(_in_play.c.number.desc())
    .limit(1)
    .scalar_subquery()
)
#: PostgreSQL: a write's first statement, the chat's row locked until the transaction ends
#: (on SQLite the writer already holds the database's lock).
_LOCK = select(chat.c.id).where(chat.c.id == bindparam("chat_id")).with_for_update()
_recent = event.alias("recent")
_OF_TABLE = (_recent.c.table_id == game_table.c.id, _recent.c.season_id == season.c.id)
_LAST_ID = (  # the table's newest record of the season, undone or not (an index seek)
    select(_recent.c.id)
    .where(*_OF_TABLE, _recent.c.kind.in_(RECORDS))
    .order_by(_recent.c.seq.desc())
    .limit(1)
    .scalar_subquery()
)
_hand = event.alias("hand")
_HAND_BEFORE = (  # the number of the table's newest live hand of the season (an index walk)
    select(_hand.c.seq)
    .where(
        _hand.c.table_id == game_table.c.id,
        _hand.c.season_id == season.c.id,
        _hand.c.kind == EventKind.HAND.value,
        _hand.c.undone_by.is_(None),
    )
    .order_by(_hand.c.seq.desc())
    .limit(1)
    .correlate(game_table, season)  # the prologue's, two levels out
    .scalar_subquery()
)
_WAITING = (  # the kongs of the hand being played
    *_OF_TABLE,
    _recent.c.kind == EventKind.KONG.value,
    _recent.c.undone_by.is_(None),
    _recent.c.seq > func.coalesce(_HAND_BEFORE, 0),
)
#: Their (seq, data), as one JSON array in each dialect's own form (none: SQLite [], PG NULL).
_KONGS = {
    "sqlite": select(
        func.json_group_array(func.json_array(_recent.c.seq, func.json(_recent.c.data)))
    ),
    "postgresql": select(func.json_agg(func.json_build_array(_recent.c.seq, _recent.c.data))),
}
_last = event.alias("last_record")


def _prologue_statement(dialect: str) -> Any:
    """What a write reads once the lock is held (PostgreSQL: in a snapshot of its own, so it
    sees what the chat's last write committed): the chat, its season in play, how this update
    was processed before, the open table of the chat or topic, and its `Tail`."""
    kongs = _KONGS[dialect].where(*_WAITING).scalar_subquery()
    return (
        select(
            chat,
            season,
            processed_update.c.update_id,
            processed_update.c.event_id,
            game_table,
            _last.c.id,
            _last.c.created_at,
            _last.c.undone_by,
            _last.c.data["same"],
            type_coerce(kongs, JSON),
        )
        .select_from(
            chat.outerjoin(season, season.c.id == _CURRENT)
            .outerjoin(processed_update, processed_update.c.update_id == bindparam("update_id"))
            .outerjoin(
                game_table,
                and_(
                    game_table.c.chat_id == chat.c.id,
                    game_table.c.closed_at.is_(None),
                    game_table.c.thread_id == bindparam("thread_id"),
                ),
            )
            .outerjoin(_last, _last.c.id == _LAST_ID)
        )
        .where(chat.c.id == bindparam("chat_id"))
    )


_PROLOGUE = {dialect: _prologue_statement(dialect) for dialect in _KONGS}
_WIDTHS = (len(chat.c), len(season.c), 2, len(game_table.c))
_NEW_CHAT = Upsert(chat, lambda stmt: stmt.on_conflict_do_nothing())
_CHAT = select(chat).where(chat.c.id == bindparam("chat_id"))
_SEASON_IN_PLAY = (
    select(season)
    .where(season.c.chat_id == bindparam("chat_id"), season.c.archived_at.is_(None))
    .order_by(season.c.number.desc())
    .limit(1)
)
_SEASON_BY_NUMBER = select(season).where(
    season.c.chat_id == bindparam("chat_id"), season.c.number == bindparam("number")
)
_OPEN_SEASON = insert(season).returning(*season.c)
_SETTINGS = update(chat).where(chat.c.id == bindparam("chat_id"))
_CLAIM = insert(processed_update)
# The claim that also notifies a channel of the chat's id at commit (PostgreSQL's pg_notify,
# an expression of its RETURNING): the notice costs no statement of its own.
_CLAIM_NOTIFYING = _CLAIM.returning(
    func.pg_notify(bindparam("channel"), cast(processed_update.c.chat_id, Text))
)
_PRUNE = delete(processed_update).where(processed_update.c.processed_at < bindparam("before"))
_PRUNE_PG = delete(processed_update).where(  # rows another transaction holds are left for later
    processed_update.c.update_id.in_(
        select(processed_update.c.update_id)
        .where(processed_update.c.processed_at < bindparam("before"))
        .with_for_update(skip_locked=True)
    )
)
_LAST_HAND_NO = select(func.max(event.c.hand_no)).where(
    event.c.table_id == bindparam("table_id"),
    event.c.season_id == bindparam("season_id"),
    event.c.kind.in_([EventKind.HAND.value, EventKind.PAY.value, EventKind.FEE.value]),
)
_undo, _undone = event.alias("undo"), event.alias("undone")
_LIVE_HANDS_OF_SEASON = (  # its hands (the season-kind index alone) less those undone
    select(func.count())
    .where(event.c.season_id == season.c.id, event.c.kind == EventKind.HAND.value)
    .scalar_subquery()
    - select(func.count())
    .select_from(_undo.join(_undone, _undone.c.id == _undo.c.data["target"].as_integer()))
    .where(
        _undo.c.season_id == season.c.id,
        _undo.c.kind == EventKind.UNDO.value,
        _undone.c.kind == EventKind.HAND.value,
    )
    .scalar_subquery()
)
_SEASONS_OF = (
    select(season).where(season.c.chat_id == bindparam("chat_id")).order_by(season.c.number)
)
_SEASONS = _SEASONS_OF.add_columns(_LIVE_HANDS_OF_SEASON)


def lock(
    db: Connection, chat_id: int, thread_id: int, update_id: int | None
) -> tuple[ChatRow, bool, SeasonRow | None, Earlier | None, TableRow | None, Tail | None]:
    """What every write does first: the chat's row, locked (made if new: then `True`), and in
    one statement read after the lock, its season in play (None: none yet), how the update
    was processed before (None: it is new), the open table of the chat or topic and its
    `Tail` (None: no table)."""
    created = False
    if db.dialect.name == "postgresql":  # the row's lock; SQLite's writer holds the database's
        created = db.execute(_LOCK, {"chat_id": chat_id}).first() is None
        if created:
            db.execute(_NEW_CHAT.of(db), {"id": chat_id})
            db.execute(_LOCK, {"chat_id": chat_id}).one()
    params = {"chat_id": chat_id, "thread_id": thread_id, "update_id": update_id}
    prologue = _PROLOGUE[db.dialect.name]
    row = db.execute(prologue, params).first()
    if row is None:  # SQLite: a chat not seen before
        created = True
        db.execute(_NEW_CHAT.of(db), {"id": chat_id})
        row = db.execute(prologue, params).one()
    return (_chat(row), created, *_prologue(row))


def _chat(row: Row[tuple[object, ...]]) -> ChatRow:
    return shaped(ChatRow, chat, row[: _WIDTHS[0]])


def _prologue(
    row: Row[tuple[object, ...]],
) -> tuple[SeasonRow | None, Earlier | None, TableRow | None, Tail | None]:
    at = _WIDTHS[0]
    season_values = row[at : at + _WIDTHS[1]]
    at += _WIDTHS[1]
    update_id, event_id = row[at], row[at + 1]
    at += 2
    table_values = row[at : at + _WIDTHS[3]]
    rest: tuple[Any, ...] = tuple(row)[at + _WIDTHS[3] :]
    last_id, last_at, undone_by, same, kongs = rest
    earlier: Earlier | None = None if update_id is None else (_optional_int(event_id),)
    table = None if table_values[0] is None else shaped(TableRow, game_table, table_values)
    tail = None
    if table is not None:
        last = None
        if last_id is not None:
            last = LastRecord(int(last_id), last_at, undone_by is not None, same)
        waiting = sorted(kongs or (), key=lambda kong: int(kong[0]))
        tail = Tail(table.id, last, tuple(data for _, data in waiting))
    return (
        None if season_values[0] is None else shaped(SeasonRow, season, season_values),
        earlier,
        table,
        tail,
    )


def _optional_int(value: object) -> int | None:
    return None if value is None else int(value)  # type: ignore[call-overload]


def get_chat(db: Connection, chat_id: int) -> ChatRow | None:
    return first(ChatRow, db.execute(_CHAT, {"chat_id": chat_id}))


def save_settings(db: Connection, chat_row: ChatRow) -> None:
    """The chat's settings (language, stakes, time zone, the default rules of new tables, the
    rating) and its title."""
    saved = {"lang", "stake", "stakes", "sisuang", "zerosum", "tz", "rating", "title"}
    saved |= {"idle", "sitting_from"}
    settings = chat_row.model_dump(include=saved)
    db.execute(_SETTINGS, {"chat_id": chat_row.id, **settings})


def claim_update(
    db: Connection, update_id: int, chat_id: int, event_id: int | None, *, notify: str = ""
) -> None:
    """Mark an update processed, with the event it recorded, in the same transaction (a second
    claim of the same update fails the transaction: nothing is recorded twice). `notify`: a
    PostgreSQL channel told the chat's id at commit by the same statement."""
    values = {"update_id": update_id, "chat_id": chat_id, "event_id": event_id}
    if notify:
        db.execute(_CLAIM_NOTIFYING, {**values, "channel": notify})
    else:
        db.execute(_CLAIM, values)


def prune_updates(db: Connection, before: datetime) -> None:
    """Forget processed update ids older than `before` (Telegram reuses ids after a week
    without updates; it redelivers for a day at most). PostgreSQL: rows another transaction
    holds (pruning too) are left for later, so a write never waits here."""
    pg = db.dialect.name == "postgresql"
    db.execute(_PRUNE_PG if pg else _PRUNE, {"before": before})


def current_season(db: Connection, chat_id: int) -> SeasonRow | None:
    """The chat's season in play."""
    return first(SeasonRow, db.execute(_SEASON_IN_PLAY, {"chat_id": chat_id}))


def season_by_number(db: Connection, chat_id: int, number: int) -> SeasonRow | None:
    return first(SeasonRow, db.execute(_SEASON_BY_NUMBER, {"chat_id": chat_id, "number": number}))


def season_number(db: Connection, season_id: int) -> int | None:
    found = db.scalar(select(season.c.number).where(season.c.id == season_id))
    return None if found is None else int(found)


def last_hand_no(db: Connection, season_id: int, table_id: int) -> int | None:
    """The number of a table's last hand or transfer of the season (undone ones too: both take
    numbers; they count per table and season), None before the first."""
    found = db.scalar(_LAST_HAND_NO, {"table_id": table_id, "season_id": season_id})
    return None if found is None else int(found)


def seasons_of(db: Connection, chat_id: int) -> list[SeasonRow]:
    """The chat's seasons, first first."""
    return every(SeasonRow, db.execute(_SEASONS_OF, {"chat_id": chat_id}))


def seasons_with_hands(db: Connection, chat_id: int) -> list[tuple[SeasonRow, int]]:
    """The chat's seasons, first first, each with its number of live hands (not undone: as
    /stats counts them)."""
    rows = db.execute(_SEASONS, {"chat_id": chat_id})
    width = len(season.c)
    return [(shaped(SeasonRow, season, row[:width]), int(row[width])) for row in rows]


def open_season(db: Connection, chat_id: int, number: int) -> SeasonRow:
    return SeasonRow(
        **db.execute(_OPEN_SEASON, {"chat_id": chat_id, "number": number}).one()._mapping
    )


def archive_season(db: Connection, season_id: int, when: datetime) -> None:
    db.execute(update(season).where(season.c.id == season_id).values(archived_at=when))


def chats_and_hands(db: Connection) -> tuple[int, int]:
    """What a database holds (the console says it): its chats, and its hands recorded and not
    undone, over every season."""
    chats = select(func.count()).select_from(chat).scalar_subquery()
    live = event.c.kind == EventKind.HAND.value, event.c.undone_by.is_(None)
    hands = select(func.count()).select_from(event).where(*live).scalar_subquery()
    found = db.execute(select(chats, hands)).one()
    return int(found[0]), int(found[1])


TOKEN_BYTES = 24  # the Mini App's tokens: 32 URL-safe characters (Telegram's startapp allows 512)
_TOKEN = select(app_link.c.token).where(
    app_link.c.chat_id == bindparam("chat_id"), app_link.c.thread_id == bindparam("thread_id")
)
_PLACE = select(app_link.c.chat_id, app_link.c.thread_id).where(
    app_link.c.token == bindparam("token")
)


def app_token(db: Connection, chat_id: int, thread_id: int) -> str:
    """The Mini App's token of a chat and forum topic (the `startapp` of its link: random, not
    derived from the chat), made on first use (the chat's row is locked)."""
    found = db.scalar(_TOKEN, {"chat_id": chat_id, "thread_id": thread_id})
    if found is not None:
        return str(found)
    token = secrets.token_urlsafe(TOKEN_BYTES)
    db.execute(insert(app_link).values(token=token, chat_id=chat_id, thread_id=thread_id))
    return token


def app_place(db: Connection, token: str) -> tuple[int, int] | None:
    """The (chat id, thread id) a Mini App token opens, or None."""
    row = db.execute(_PLACE, {"token": token}).first()
    return None if row is None else (int(row[0]), int(row[1]))
