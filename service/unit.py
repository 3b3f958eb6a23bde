"""The unit of work a use case runs in: one transaction, the locked chat, its current season."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Connection
from sqlmodel import Session

from service.context import Ctx
from storage.rows import ChatRow, SeasonRow
from storage.sql import Sql


@dataclass
class Tx:
    """`db` runs the hand path's plain statements; `session` (the ORM, opened on first use)
    serves the less frequent use cases. Both work in the same transaction."""

    conn: Connection
    db: Sql
    chat: ChatRow
    season: SeasonRow
    ctx: Ctx
    event_id: int | None = None  # the event this update recorded (linked to the update id)
    orm: Session | None = None

    @property
    def session(self) -> Session:
        if self.orm is None:
            self.orm = Session(bind=self.conn, expire_on_commit=False)
        return self.orm

    def flush(self) -> None:
        """Write what the ORM holds (before the transaction commits)."""
        if self.orm is not None:
            self.orm.flush()
