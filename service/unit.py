"""The unit of work a use case runs in: one session, the locked chat, its current season."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from service.context import Ctx
from storage.models import Chat, Season


@dataclass
class Tx:
    session: Session
    chat: Chat
    season: Season
    ctx: Ctx
    event_id: int | None = None  # the event this update recorded (linked to the update id)
