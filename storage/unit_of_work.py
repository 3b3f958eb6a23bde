"""The unit of work: the one way a write reaches the database. Each is one transaction of one
chat: its row locked first, where it stands read next, the update id claimed with what the
write recorded, all committed at the end or nothing (docs/storage.md)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import timedelta
from typing import TypeVar

from sqlalchemy.engine import Connection, Engine

from storage.db import writing
from storage.gateway import chat_move, chats
from storage.gateway.chats import Earlier, Tail
from storage.models import ChatRow, SeasonRow, TableRow, utcnow
from storage.notify import Notices

KEEP_UPDATES = timedelta(days=2)  # redeliveries come within a day
PRUNE_EVERY = 3600.0  # seconds between prunings of old update ids


@dataclass(kw_only=True)
class ChatWrite:
    """A chat's write: the transaction (`db`), the locked chat, its season in play, and as the
    write's first statement read them, the open table of the chat or topic with its `Tail`,
    and how this update was processed before (None: new). `event_id`: the event the write
    records, claimed with the update at the end. The service's `Tx` is one, with who asks."""

    db: Connection
    chat: ChatRow
    season: SeasonRow
    table: TableRow | None = None
    tail: Tail | None = None  # None: no table, or its records changed since (`ledger.record`)
    earlier: Earlier | None = None
    event_id: int | None = None


W = TypeVar("W", bound=ChatWrite)


class UnitOfWork:
    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        sqlite = engine.dialect.name == "sqlite"
        self._one_writer: AbstractContextManager[object] = (
            threading.Lock() if sqlite else contextlib.nullcontext()
        )
        self._pruned_at: float | None = None
        self.notices = Notices(engine)  # who listens learns which chat's write committed

    @contextlib.contextmanager
    def transaction(self) -> Iterator[Connection]:
        """A write of the bot's own (a chat move, pruning): committed at the block's end."""
        with self._one_writer, self.engine.connect() as db, writing(db).begin():
            yield db

    @contextlib.contextmanager
    def chat(
        self,
        chat_id: int,
        thread_id: int = 0,
        update_id: int | None = None,
        *,
        keep: bool = True,
        make: Callable[..., W],
    ) -> Iterator[W]:
        """A write of chat `chat_id` (a chat that moved: of the chat it became), as `make`
        builds it from `ChatWrite`'s fields (`ChatWrite`, or the service's `Tx`), committed at
        the block's end with the claim of `update_id` and a notice to every worker that the chat
        moved (`storage.notify`); `keep=False`: rolled back (a dry run)."""
        self._prune()
        with self._one_writer, self.engine.connect() as db, writing(db).begin() as transaction:
            work = make(**_start(db, chat_id, thread_id, None if not keep else update_id))
            yield work
            if not keep:
                transaction.rollback()
                return
            if update_id is not None and work.earlier is None:
                channel = self.notices.channel  # the claim carries the notice (PostgreSQL)
                chats.claim_update(db, update_id, work.chat.id, work.event_id, notify=channel)
            else:
                self.notices.within(db, work.chat.id)
        self.notices.committed(work.chat.id)

    def read(self) -> AbstractContextManager[Connection]:
        """A read-only transaction: one consistent snapshot."""
        return reading(self.engine)

    def _prune(self) -> None:
        """Now and then (and first of all after a start), forget old update ids: a write of its
        own, before a chat's."""
        now = time.monotonic()
        if self._pruned_at is None or now - self._pruned_at > PRUNE_EVERY:
            self._pruned_at = now
            with self.transaction() as db:
                chats.prune_updates(db, utcnow() - KEEP_UPDATES)


@contextlib.contextmanager
def reading(engine: Engine) -> Iterator[Connection]:
    """A read-only transaction on `engine`: one consistent snapshot."""
    with engine.connect() as db, db.begin():
        yield db


def _start(
    db: Connection, chat_id: int, thread_id: int, update_id: int | None
) -> dict[str, object]:
    chat, created, season, earlier, table, tail = chats.lock(db, chat_id, thread_id, update_id)
    target = chat_move.follow(db, chat.id) if created else None
    if target is not None:
        chat, _, season, earlier, table, tail = chats.lock(db, target, thread_id, update_id)
    if season is None:
        season = chats.open_season(db, chat.id, 1)
        tail = None  # the table's records are of another season's: read them when asked
    return {
        "db": db,
        "chat": chat,
        "season": season,
        "table": table,
        "tail": tail,
        "earlier": earlier,
    }
