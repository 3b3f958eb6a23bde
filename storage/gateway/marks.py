"""Balance marks: every `MARK_EVERY`-th event of a chat, a copy of its season's balances as
they stood just before it (revision 0013), so /chart reads a few hundred marks instead of the
season's whole ledger.

A mark is never changed. It holds the records before its event that were live then; an undo
written later (after the mark's event) of a record before it is subtracted when the marks are
read (`undone_after`): undone records are few. With each balance, a mark keeps the unit's count
of live records (hands and transfers) at that point: where it is drawn.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from fractions import Fraction

from scoring.games import EventKind, Game
from storage.sql import Sql, placeholders
from storage.types import exact_amount

MARK_EVERY = 20  # chat events: one INSERT … SELECT per 20 events, nothing in between
RECORDS = (EventKind.HAND.value, EventKind.PAY.value)  # what moves balances
# A unit's live records now: its live hands (kept for /stats) and its live transfers (few).
PLAYED = (
    "COALESCE((SELECT h.live FROM stat_hands h WHERE h.season_id = b.season_id"
    " AND h.unit = b.unit), 0) + (SELECT count(*) FROM event e JOIN transfer t"
    " ON t.event_id = e.id WHERE e.season_id = b.season_id AND e.kind = 'pay'"
    " AND e.undone_by IS NULL AND t.unit = b.unit)"
)


def mark(db: Sql, season_id: int, seq: int) -> None:
    """The write path's one call, as event `seq` of the season is appended (before its own
    changes): every `MARK_EVERY`-th event, the season's non-zero balances are copied."""
    if seq % MARK_EVERY:
        return
    db.run(
        "INSERT INTO balance_mark (season_id, seq, unit, player_id, amount, played)"
        f" SELECT b.season_id, ?, b.unit, b.player_id, b.amount, {PLAYED} FROM balance b"
        " WHERE b.season_id = ? AND b.amount <> '0'",
        (seq, season_id),
    )


def live_counts(db: Sql, season_id: int) -> dict[str, int]:
    """Each unit's live records (hands and transfers) now, as a mark counts them."""
    rows = db.rows(
        f"SELECT b.unit, {PLAYED} FROM (SELECT DISTINCT season_id, unit FROM balance"
        " WHERE season_id = ?) b",
        (season_id,),
    )
    return {unit: int(n) for unit, n in rows if n}


def mark_places(db: Sql, season_id: int) -> list[tuple[int, str, int]]:
    """Where the season's marks stand: (seq, unit, live records of the unit), oldest first."""
    return db.rows(
        "SELECT seq, unit, max(played) FROM balance_mark WHERE season_id = ?"
        " GROUP BY seq, unit ORDER BY seq, unit",
        (season_id,),
    )


def marked_balances(
    db: Sql, season_id: int, seqs: Sequence[int]
) -> Iterator[tuple[int, str, int, Fraction | int]]:
    """(seq, unit, player id, balance) of the season's marks at these events."""
    for start in range(0, len(seqs), 500):
        chunk = seqs[start : start + 500]
        for seq, unit, pid, amount in db.rows(
            "SELECT seq, unit, player_id, amount FROM balance_mark WHERE season_id = ?"
            f" AND seq IN ({placeholders(len(chunk))})",
            (season_id, *chunk),
        ):
            yield seq, unit, pid, exact_amount(amount)


Undone = tuple[int, int, str, dict[int, Fraction | int]]  # seq, undo's seq, unit, nets


def undone_after(db: Sql, season_id: int) -> list[Undone]:
    """The season's undone hands and transfers: (their seq, their undo's seq, unit, each
    player's net), found from the undos (few) by their target."""
    target = "(u.data ->> 'target')::bigint" if db.pg else "json_extract(u.data, '$.target')"
    nets: dict[tuple[int, int, str], dict[int, Fraction | int]] = {}
    for seq, undo_seq, game, unit, payer, payee, amount in db.rows(
        "SELECT r.seq, u.seq, r.game, t.unit, t.payer_id, t.payee_id, t.amount FROM event u"
        f" JOIN event r ON r.id = {target} AND r.undone_by = u.id"
        " LEFT JOIN transfer t ON t.event_id = r.id"
        " WHERE u.season_id = ? AND u.kind = ? AND r.kind IN (?, ?) ORDER BY r.seq, t.id",
        (season_id, EventKind.UNDO.value, *RECORDS),
    ):
        net = nets.setdefault((seq, undo_seq, unit or unit_of(game)), defaultdict(int))
        if amount is None:  # a hand without payments (a drawn hand) counted all the same
            continue
        value = exact_amount(amount)
        if payer is not None:
            net[payer] -= value
        if payee is not None:
            net[payee] += value
    return [(seq, undo_seq, unit, dict(net)) for (seq, undo_seq, unit), net in nets.items()]


def fill(db: Sql, season_id: int) -> None:
    """Write the season's marks from its ledger as `mark` would have written them (revision
    0013, a chat move): one streamed pass, the rows written a few thousand at a time."""
    balances: dict[tuple[str, int], Fraction | int] = defaultdict(int)
    played: dict[str, int] = defaultdict(int)
    pending: dict[int, tuple[str, dict[int, Fraction | int]]] = {}  # by the undo's id
    undos: set[int] = set()
    rows: list[tuple[int, int, str, int, str, int]] = []
    current: tuple[int, str, int | None, str, dict[int, Fraction | int]] | None = None

    def apply(event: tuple[int, str, int | None, str, dict[int, Fraction | int]]) -> None:
        event_id, kind, undone_by, unit, net = event
        if kind == EventKind.UNDO and event_id in pending:
            gone_unit, gone = pending.pop(event_id)
            played[gone_unit] -= 1
            for pid, value in gone.items():
                balances[(gone_unit, pid)] -= value
        if kind == EventKind.UNDO:
            undos.add(event_id)
        if kind not in RECORDS or undone_by in undos:
            return  # a copy undone before it was written (`bench.ledger`) never counted
        played[unit] += 1
        for pid, value in net.items():
            balances[(unit, pid)] += value
        if undone_by is not None:
            pending[undone_by] = (unit, net)

    for event_id, seq, kind, game, undone_by, unit, payer, payee, amount in db.stream(
        "SELECT e.id, e.seq, e.kind, e.game, e.undone_by, t.unit, t.payer_id, t.payee_id,"
        " t.amount"
        " FROM event e LEFT JOIN transfer t ON t.event_id = e.id WHERE e.season_id = ?"
        " ORDER BY e.seq, t.id",
        (season_id,),
    ):
        if current is None or current[0] != event_id:
            if current is not None:
                apply(current)
            if seq % MARK_EVERY == 0:
                rows.extend(
                    (season_id, seq, u, pid, str(value), played[u])
                    for (u, pid), value in balances.items()
                    if value
                )
                if len(rows) > 5000:
                    _write(db, rows)
            current = (event_id, kind, undone_by, unit or unit_of(game), defaultdict(int))
        if amount is not None:
            value = exact_amount(amount)
            if payer is not None:
                current[4][payer] -= value
            if payee is not None:
                current[4][payee] += value
    _write(db, rows)


def forget(db: Sql, season_ids: Sequence[int]) -> None:
    """The seasons' marks go (a chat move renumbers their events: `fill` writes them anew)."""
    if season_ids:
        db.run(
            f"DELETE FROM balance_mark WHERE season_id IN ({placeholders(len(season_ids))})",
            list(season_ids),
        )


def _write(db: Sql, rows: list[tuple[int, int, str, int, str, int]]) -> None:
    db.many(
        "INSERT INTO balance_mark (season_id, seq, unit, player_id, amount, played)"
        " VALUES (?, ?, ?, ?, ?, ?)",
        rows,
    )
    rows.clear()


def unit_of(game: str) -> str:
    """The unit of a record without payments: its game's (a free round always has some)."""
    return Game(game).unit.value
