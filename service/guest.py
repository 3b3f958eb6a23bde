"""Guest mode (Bot API 10.0): a member of a chat that never added the bot mentions it with a
free round or a transfer (`@jifen_bot 老王+30 小李-30 阿张`). The chat's ledger is the one the
bot keeps when it is a member: its free table is opened and the players the line names are
seated as needed, then the record is made as /s or /pay makes it, all in one transaction (a
redelivered guest update is recorded once, as any update)."""

from __future__ import annotations

from scoring.games import Game
from service import free, tables
from service import players as who
from service.errors import N_, ServiceError
from service.replies import NameAsk, Recorded
from service.requests import GuestRound, NewTable, Pay, PlayerRef, RefKind, Score, Seats
from service.unit import Tx
from storage.gateway import tables as stored_tables
from storage.models import TableRow

#: The answer where a guest line needs what only the bot in the group does.
NEEDS_THE_BOT = N_(
    "As a guest I keep free rounds, transfers and the standings. Mahjong and 510K need me in "
    "the group: add me to it (the group's info → Add members), then open a table there."
)
CLOSE_NAME = N_(
    "'{typed}' is one letter from {guess}, a player here: write the name as the player is "
    "called (or add me to the group, where I ask by buttons)."
)


def named(record: Score | Pay) -> tuple[PlayerRef, ...]:
    """The players a record names, in its order."""
    if isinstance(record, Score):
        return tuple(entry.player for entry in record.entries)
    return (record.payer, record.payee)


def guest_round(tx: Tx, req: GuestRound) -> Recorded:
    """Open the chat's free table and seat the players named where needed, then record."""
    table = tx.table if tx.table_fresh else None
    tx.table_fresh = False  # the use case reads the open table again as it changes
    table = table or stored_tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    refs = named(req.record)
    if table is None:
        tables.new_table(tx, NewTable(Game.FREE))
        _seat(tx, refs)
    elif Game(table.game) is Game.FREE:
        missing = [ref for ref in refs if not _seated(tx, table, ref)]
        if missing:
            here = [PlayerRef(RefKind.ID, str(p.id)) for p in who.seated(tx, table)]
            _seat(tx, (*here, *missing))
    elif isinstance(req.record, Score):
        raise ServiceError(NEEDS_THE_BOT)
    if isinstance(req.record, Score):
        return free.score(tx, req.record)
    return free.pay(tx, req.record)


def _seated(tx: Tx, table: TableRow, ref: PlayerRef) -> bool:
    try:
        who.seat_of(tx, table, ref)
    except ServiceError:
        return False
    return True


def _seat(tx: Tx, refs: tuple[PlayerRef, ...]) -> None:
    """Seat `refs` at the open free table; a name one letter from a known player's is refused
    (no buttons to ask by: the whole record is not made)."""
    seated = tables.seats(tx, Seats(refs))
    if isinstance(seated, NameAsk):
        raise ServiceError(CLOSE_NAME, typed=seated.typed, guess=seated.guess)
