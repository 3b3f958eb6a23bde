"""The unit of work a use case runs in: one transaction, the locked chat, its current season."""

from __future__ import annotations

from dataclasses import dataclass

from service.context import Ctx
from storage.rows import ChatRow, SeasonRow
from storage.sql import Sql


@dataclass
class Tx:
    """`db` is the transaction: every read and write goes through `storage.gateway` on it."""

    db: Sql
    chat: ChatRow
    season: SeasonRow
    ctx: Ctx
    event_id: int | None = None  # the event this update recorded (linked to the update id)
