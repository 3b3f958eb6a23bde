"""What a use case runs in: the chat's write (`storage.unit_of_work.ChatWrite`: its transaction,
the locked chat, its season, the open table as first read) and who asks."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from service.context import Ctx
from storage.models import EventRow
from storage.unit_of_work import ChatWrite


@dataclass(kw_only=True)
class Tx(ChatWrite):
    """`db` is the transaction: every read and write goes through `storage.gateway` on it;
    `event_id` is what the update recorded (claimed with the update id at the end)."""

    ctx: Ctx
    # Whether `table` is still the use case's first look at the open table (`service.tables`);
    # a read-only Tx has not read one.
    table_fresh: bool = True
    again: bool = False  # [Record again]: the two-minute rule said, and was answered, "again"
    now: datetime | None = None  # the service's clock at the write's start: its records' time
    editing: EventRow | None = None  # /edit: the record the use case's record rewrites
