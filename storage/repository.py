"""Queries and writes over one session. Keyword-light functions; the caller owns the transaction."""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import func, update
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


def get_chat(session: Session, chat_id: int) -> Chat | None:
    return session.get(Chat, chat_id)


def current_season(session: Session, chat_id: int) -> Season | None:
    return session.exec(
        select(Season)
        .where(Season.chat_id == chat_id, col(Season.archived_at).is_(None))
        .order_by(col(Season.number).desc())
    ).first()


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


def last_live_event(
    session: Session, *, table_id: int, season_id: int, kinds: Sequence[str]
) -> Event | None:
    """A table's newest event of these kinds of one season that is not undone."""
    stmt = select(Event).where(
        Event.table_id == table_id,
        Event.season_id == season_id,
        col(Event.kind).in_(kinds),
        col(Event.undone_by).is_(None),
    )
    return session.exec(stmt.order_by(col(Event.seq).desc())).first()


def transfers_of(session: Session, event_ids: Sequence[int]) -> Sequence[Transfer]:
    if not event_ids:
        return []
    return session.exec(
        select(Transfer).where(col(Transfer.event_id).in_(event_ids)).order_by(col(Transfer.id))
    ).all()


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
