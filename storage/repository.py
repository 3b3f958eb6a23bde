"""Queries and writes over one session. Keyword-light functions; the caller owns the transaction."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta
from fractions import Fraction
from typing import Any

from sqlalchemy import delete, func, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session, col, select

from storage.models import (
    Balance,
    Chat,
    Event,
    GameTable,
    Player,
    ProcessedUpdate,
    Season,
    Transfer,
    utcnow,
)


def _insert(session: Session, model: type[Any]) -> Any:
    dialect = session.get_bind().dialect.name
    return (postgresql.insert if dialect == "postgresql" else sqlite.insert)(model)


def lock_chat(session: Session, chat_id: int) -> Chat:
    """The chat's row, created if new and locked for this transaction (writes of one chat are
    serialised; SQLite already serialises all writers)."""
    session.execute(_insert(session, Chat).values(id=chat_id).on_conflict_do_nothing())
    chat = session.exec(select(Chat).where(Chat.id == chat_id).with_for_update()).one()
    return chat


def get_chat(session: Session, chat_id: int) -> Chat | None:
    return session.get(Chat, chat_id)


def claim_update(session: Session, update_id: int, chat_id: int) -> ProcessedUpdate | None:
    """Mark an update processed; returns the earlier record if it was processed already."""
    stmt = _insert(session, ProcessedUpdate).values(update_id=update_id, chat_id=chat_id)
    claimed = session.execute(
        stmt.on_conflict_do_nothing().returning(ProcessedUpdate.update_id)
    ).first()
    if claimed is not None:
        return None
    return session.get(ProcessedUpdate, update_id)


def prune_updates(session: Session, older_than: timedelta) -> None:
    """Forget processed update ids older than `older_than` (Telegram reuses ids after a
    week without updates; it redelivers for a day at most)."""
    session.execute(
        delete(ProcessedUpdate).where(col(ProcessedUpdate.processed_at) < utcnow() - older_than)
    )


def link_update(session: Session, update_id: int, event_id: int) -> None:
    session.execute(
        update(ProcessedUpdate)
        .where(col(ProcessedUpdate.update_id) == update_id)
        .values(event_id=event_id)
    )


def current_season(session: Session, chat_id: int, *, create: bool = False) -> Season | None:
    season = session.exec(
        select(Season)
        .where(Season.chat_id == chat_id, col(Season.archived_at).is_(None))
        .order_by(col(Season.number).desc())
    ).first()
    if season is None and create:
        season = Season(chat_id=chat_id, number=1)
        session.add(season)
        session.flush()
    return season


def season_by_number(session: Session, chat_id: int, number: int) -> Season | None:
    return session.exec(
        select(Season).where(Season.chat_id == chat_id, Season.number == number)
    ).first()


def seasons(session: Session, chat_id: int) -> Sequence[Season]:
    return session.exec(
        select(Season).where(Season.chat_id == chat_id).order_by(col(Season.number))
    ).all()


def open_table(session: Session, chat_id: int, thread_id: int) -> GameTable | None:
    return session.exec(
        select(GameTable).where(
            GameTable.chat_id == chat_id,
            GameTable.thread_id == thread_id,
            col(GameTable.closed_at).is_(None),
        )
    ).first()


def open_tables(session: Session, chat_id: int) -> Sequence[GameTable]:
    return session.exec(
        select(GameTable).where(GameTable.chat_id == chat_id, col(GameTable.closed_at).is_(None))
    ).all()


def close_table(session: Session, table: GameTable) -> None:
    table.closed_at = utcnow()
    session.add(table)
    session.flush()


def players_of_chat(session: Session, chat_id: int) -> Sequence[Player]:
    return session.exec(select(Player).where(Player.chat_id == chat_id)).all()


def players_by_id(session: Session, ids: Iterable[int]) -> dict[int, Player]:
    wanted = set(ids)
    if not wanted:
        return {}
    rows = session.exec(select(Player).where(col(Player.id).in_(wanted))).all()
    return {p.id: p for p in rows if p.id is not None}


def player_for_user(
    session: Session, chat_id: int, user_id: int, name: str, username: str | None
) -> Player:
    """The chat's player for a Telegram user, created on first sight; name kept current. A guest
    linked to the user's @username, or else the one guest of the same name (seated by
    `/seats` before the person spoke), becomes the user's player."""
    player = session.exec(
        select(Player).where(Player.chat_id == chat_id, Player.user_id == user_id)
    ).first()
    guests = select(Player).where(Player.chat_id == chat_id, col(Player.user_id).is_(None))
    if player is None and username:
        player = session.exec(guests.where(func.lower(Player.username) == username.lower())).first()
    if player is None:
        same_name = session.exec(guests.where(func.lower(Player.name) == name.lower())).all()
        player = same_name[0] if len(same_name) == 1 else None
    if player is None:
        player = Player(chat_id=chat_id, user_id=user_id, name=name, username=username)
    elif player.user_id is None:
        player.user_id, player.username = user_id, username  # a linked guest keeps its name
    else:
        player.name, player.username = name, username
    session.add(player)
    session.flush()
    return player


def add_player(session: Session, chat_id: int, name: str) -> Player:
    player = Player(chat_id=chat_id, name=name)
    session.add(player)
    session.flush()
    return player


def next_numbers(session: Session, chat: Chat, *, hand: bool) -> tuple[int, int | None]:
    """Take the chat's next event number (and hand number); the chat row is locked."""
    seq, hand_no = chat.next_seq, (chat.next_hand_no if hand else None)
    chat.next_seq += 1
    if hand:
        chat.next_hand_no += 1
    session.add(chat)
    return seq, hand_no


def add_event(session: Session, chat: Chat, event: Event) -> Event:
    event.seq, event.hand_no = next_numbers(session, chat, hand=event.kind == "hand")
    session.add(event)
    session.flush()
    return event


def _live(table_id: int, season_id: int, kinds: Sequence[str]) -> Any:
    """A table's events of one season, of some kinds, that are not undone."""
    return select(Event).where(
        Event.table_id == table_id,
        Event.season_id == season_id,
        col(Event.kind).in_(kinds),
        col(Event.undone_by).is_(None),
    )


def live_events(
    session: Session,
    *,
    table_id: int,
    season_id: int,
    kinds: Sequence[str],
    after_seq: int = 0,
) -> Sequence[Event]:
    """A table's live events after `after_seq`, oldest first."""
    stmt = _live(table_id, season_id, kinds).where(Event.seq > after_seq)
    return session.exec(stmt.order_by(col(Event.seq))).all()


def last_live_event(
    session: Session, *, table_id: int, season_id: int, kinds: Sequence[str]
) -> Event | None:
    """A table's newest live event of these kinds."""
    stmt = _live(table_id, season_id, kinds).order_by(col(Event.seq).desc())
    return session.exec(stmt).first()


def add_transfers(
    session: Session,
    transfers: Sequence[Transfer],
    *,
    season_id: int,
    unit: str,
    seated: Iterable[int],
) -> None:
    """Write a hand's transfers and move the season balances by them; every seated player
    gets a balance row (zero at first) so standings list them."""
    deltas: dict[tuple[int, int, str], Fraction] = {
        (season_id, pid, unit): Fraction(0) for pid in seated
    }
    for t in transfers:
        session.add(t)
        for pid, sign in ((t.payer_id, -1), (t.payee_id, 1)):
            if pid is not None:
                key = (t.season_id, pid, t.unit)
                deltas[key] = deltas.get(key, Fraction(0)) + sign * t.amount
    move_balances(session, deltas)
    session.flush()


def move_balances(session: Session, deltas: dict[tuple[int, int, str], Fraction]) -> None:
    """Add `deltas` to the cached balances, reading the rows concerned in one query."""
    if not deltas:
        return
    rows = session.exec(
        select(Balance).where(
            col(Balance.season_id).in_({k[0] for k in deltas}),
            col(Balance.player_id).in_({k[1] for k in deltas}),
        )
    ).all()
    found = {(b.season_id, b.player_id, b.unit): b for b in rows}
    for (season_id, player_id, unit), delta in deltas.items():
        row = found.get((season_id, player_id, unit))
        if row is None:
            session.add(Balance(season_id=season_id, player_id=player_id, unit=unit, amount=delta))
        elif delta:
            row.amount = row.amount + delta
            session.add(row)


def transfers_of(session: Session, event_ids: Sequence[int]) -> Sequence[Transfer]:
    if not event_ids:
        return []
    return session.exec(
        select(Transfer).where(col(Transfer.event_id).in_(event_ids)).order_by(col(Transfer.id))
    ).all()


def undo_event(session: Session, chat: Chat, target: Event, undo: Event) -> Event:
    """Record `undo` reverting `target`: the target is marked, its transfers leave the balances."""
    add_event(session, chat, undo)
    target.undone_by = undo.id
    session.add(target)
    deltas: dict[tuple[int, int, str], Fraction] = {}
    for t in transfers_of(session, [target.id] if target.id is not None else []):
        for pid, sign in ((t.payer_id, 1), (t.payee_id, -1)):
            if pid is not None:
                key = (t.season_id, pid, t.unit)
                deltas[key] = deltas.get(key, Fraction(0)) + sign * t.amount
    move_balances(session, deltas)
    session.flush()
    return undo


def balances(session: Session, season_id: int) -> Sequence[Balance]:
    return session.exec(select(Balance).where(Balance.season_id == season_id)).all()


def hands(session: Session, season_id: int, *, limit: int | None = None) -> Sequence[Event]:
    """The season's hands, newest first."""
    stmt = (
        select(Event)
        .where(Event.season_id == season_id, Event.kind == "hand")
        .order_by(col(Event.seq).desc())
    )
    if limit is not None:
        stmt = stmt.limit(limit)
    return session.exec(stmt).all()


def count_hands(session: Session, season_id: int) -> int:
    return session.exec(
        select(func.count())
        .select_from(Event)
        .where(Event.season_id == season_id, Event.kind == "hand")
    ).one()


def event_by_id(session: Session, event_id: int) -> Event | None:
    return session.get(Event, event_id)


def move_chat(session: Session, old_id: int, new_id: int) -> None:
    """Group → supergroup migration: every row of the old chat id moves to the new one."""
    old = session.get(Chat, old_id)
    if old is None or session.get(Chat, new_id) is not None:
        return
    new = Chat(**{**old.model_dump(), "id": new_id})
    session.add(new)
    session.flush()
    for model in (Season, Player, GameTable, Event):
        session.execute(update(model).where(model.chat_id == old_id).values(chat_id=new_id))  # type: ignore[attr-defined]
    session.execute(
        update(ProcessedUpdate).where(col(ProcessedUpdate.chat_id) == old_id).values(chat_id=new_id)
    )
    session.delete(old)
    session.flush()
