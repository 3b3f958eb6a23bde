"""What a use case runs in: its transaction, the locked chat, its current season, who asks."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.engine import Connection

from service.context import Ctx
from storage.models import ChatRow, SeasonRow, TableRow


@dataclass
class Tx:
    """`db` is the transaction: every read and write goes through `storage.gateway` on it."""

    db: Connection
    chat: ChatRow
    season: SeasonRow
    ctx: Ctx
    event_id: int | None = None  # the event this update recorded (linked to the update id)
    # The open table of the chat or topic as read with the write's first statement, for the
    # use case's first look at it (`service.tables`); None: not read then, or none is open.
    table_read: TableRow | None = None
    table_was_read: bool = False
    again: bool = False  # [Record again]: the two-minute rule said, and was answered, "again"
