"""What the Mini App shows beside the chat's views: the open table's kongs of the current hand
(its chart is /chart's: `service.insight.chart_data`)."""

from __future__ import annotations

from sqlalchemy.engine import Connection

from scoring.games import EventKind
from service.hand_views import HandView
from service.ledger import hand_views
from storage.gateway import chats, tables
from storage.gateway import ledger as book


def pending_kongs(db: Connection, chat_id: int, thread_id: int) -> tuple[HandView, ...]:
    """The kongs recorded at the open table since its last live hand, oldest first (they
    settle with the hand that ends it)."""
    table = tables.open_table(db, chat_id, thread_id)
    season = chats.current_season(db, chat_id)
    if table is None or season is None or table.season_id != season.id:
        return ()
    tail = book.live_tail(db, table.id, season.id)
    return tuple(hand_views(db, [e for e in reversed(tail) if e.kind == EventKind.KONG]))
