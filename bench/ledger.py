"""A long ledger without replaying it: bulk copies of hands the real bot recorded.

The template is a chat whose hands were all recorded through the full path (PTB → service →
SQLite). ``replicate`` appends copies of its events in their original order, ``times - 1``
times, with the rows the service writes for each: the ``event`` (new id, ``seq``, ``hand_no``),
its ``transfer`` rows and a ``processed_update`` row; then it recomputes the season
``balance`` rows from all transfers (exact fractions), as the service keeps them. Values are
copied as stored (JSON and fraction text), so rows are byte-identical to the service's apart
from ids and numbers.

A database of an older revision (``bench.compare --harness``) kept derived tables beside the
ledger: where they exist, the /stats counters (``stat_*``: sums over hands) are scaled by
``times`` and the balance marks the service wrote (every 20th event, the balances before it)
are written for the copies, so the older code is measured on what it would have kept.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from fractions import Fraction
from typing import Any

from sqlalchemy.engine import Connection, Engine

from scoring.games import Game
from scoring.hand_stats import COUNTERS


@contextmanager
def _writing(engine: Engine) -> Iterator[Connection]:
    """A write transaction (BEGIN IMMEDIATE on SQLite), on this revision's engine or an older
    one's (`bench.compare --harness`: it began them by hand)."""
    from storage import db

    with engine.connect() as conn:
        if hasattr(db, "writing"):
            with db.writing(conn).begin():
                yield conn
        else:
            with conn.begin():
                db.begin(conn, write=True)  # type: ignore[attr-defined]
                yield conn


Row = tuple[Any, ...]
BATCH = 20_000
UPDATE_ID_BASE = 10**12  # far above the fake API's update ids


def _columns(conn: Connection, table: str) -> list[str]:
    return [row[1] for row in conn.exec_driver_sql(f'PRAGMA table_info("{table}")').fetchall()]


def _rows(conn: Connection, sql: str, params: tuple[Any, ...]) -> list[Row]:
    return [tuple(row) for row in conn.exec_driver_sql(sql, params).fetchall()]


def _insert_many(conn: Connection, table: str, columns: Sequence[str], rows: Iterator[Row]) -> int:
    """executemany in batches; the number of rows written."""
    names = ", ".join(f'"{c}"' for c in columns)
    sql = f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" * len(columns))})'
    written, batch = 0, []
    for row in rows:
        batch.append(row)
        if len(batch) == BATCH:
            conn.exec_driver_sql(sql, batch)
            written, batch = written + len(batch), []
    if batch:
        conn.exec_driver_sql(sql, batch)
    return written + len(batch)


class Template:
    """The chat's recorded events and their transfers, read once."""

    def __init__(self, conn: Connection, chat_id: int) -> None:
        self.chat_id = chat_id
        self.event_cols = _columns(conn, "event")
        self.transfer_cols = _columns(conn, "transfer")
        self.events = _rows(conn, "SELECT * FROM event WHERE chat_id = ? ORDER BY seq", (chat_id,))
        ids = [e[self.event_cols.index("id")] for e in self.events]
        marks = ", ".join("?" * len(ids))
        transfers = _rows(conn, f"SELECT * FROM transfer WHERE event_id IN ({marks})", tuple(ids))
        self.transfers: dict[int, list[Row]] = defaultdict(list)
        event_at = self.transfer_cols.index("event_id")
        id_at = self.transfer_cols.index("id")
        for row in sorted(transfers, key=lambda r: r[id_at]):
            self.transfers[row[event_at]].append(row)

    @property
    def hands(self) -> int:
        kind = self.event_cols.index("kind")
        return sum(e[kind] == "hand" for e in self.events)


def _copies(
    template: Template, times: int, next_id: int, next_seq: int, next_hand: int
) -> Iterator[tuple[Row, list[Row]]]:
    """(event row, its transfer rows) for every copy, renumbered."""
    col = template.event_cols.index
    id_at, seq_at, hand_at = col("id"), col("seq"), col("hand_no")
    for _ in range(times - 1):
        for event in template.events:
            new = list(event)
            new[id_at], new[seq_at] = next_id, next_seq
            if event[hand_at] is not None:
                new[hand_at], next_hand = next_hand, next_hand + 1
            transfers = [
                _transfer_copy(template, t, next_id) for t in template.transfers[event[id_at]]
            ]
            yield tuple(new), transfers
            next_id, next_seq = next_id + 1, next_seq + 1


def _transfer_copy(template: Template, row: Row, event_id: int) -> Row:
    """A transfer row for the copied event (its own id left to SQLite)."""
    new = list(row)
    new[template.transfer_cols.index("id")] = None
    new[template.transfer_cols.index("event_id")] = event_id
    return tuple(new)


def _max(conn: Connection, sql: str, params: tuple[Any, ...] = ()) -> int:
    return int(conn.exec_driver_sql(sql, params).scalar() or 0)


def replicate(engine: Engine, chat_id: int, times: int) -> int:
    """Make the chat's ledger ``times`` copies of what it holds now; the chat's hand count."""
    with _writing(engine) as conn:
        template = Template(conn, chat_id)
        next_id = _max(conn, "SELECT max(id) FROM event") + 1
        next_seq = _max(conn, "SELECT max(seq) FROM event WHERE chat_id = ?", (chat_id,)) + 1
        next_hand = _max(conn, "SELECT max(hand_no) FROM event WHERE chat_id = ?", (chat_id,)) + 1
        copies = list(_copies(template, times, next_id, next_seq, next_hand))
        _insert_many(conn, "event", template.event_cols, (event for event, _ in copies))
        transfers = (t for _, rows in copies for t in rows)
        _insert_many(conn, "transfer", template.transfer_cols, transfers)
        first = max(UPDATE_ID_BASE, _max(conn, "SELECT max(update_id) FROM processed_update") + 1)
        _insert_many(conn, "processed_update", *_processed(template, copies, chat_id, first))
        _recompute_balances(conn, chat_id)
        kept = {row[0] for row in conn.exec_driver_sql("SELECT name FROM sqlite_master")}
        if "stat_player" in kept:
            _scale_stats(conn, chat_id, times, "stat_mate" in kept)
        if "balance_mark" in kept:
            _insert_many(conn, "balance_mark", MARK_COLUMNS, _marks(template, copies))
    return template.hands * times


MARK_COLUMNS = ("season_id", "seq", "unit", "player_id", "amount", "played")
MARK_EVERY = 20  # an older revision's balance marks: one every 20 events of a chat
RECORDS = ("hand", "pay")


def _marks(template: Template, copies: Sequence[tuple[Row, list[Row]]]) -> Iterator[Row]:
    """An older revision's marks of the copied events: the running balances and live record
    counts (from the template's live records on), copied before every ``MARK_EVERY``-th
    event. A copy of an undone record points at the template's undo, written before it: it
    never counts."""
    col, tcol = template.event_cols.index, template.transfer_cols.index
    id_at, seq_at, season_at = col("id"), col("seq"), col("season_id")
    kind_at, game_at, undone_at = col("kind"), col("game"), col("undone_by")
    unit_at, payer_at, payee_at, amount_at = (
        tcol("unit"),
        tcol("payer_id"),
        tcol("payee_id"),
        tcol("amount"),
    )
    balances: dict[tuple[int, str, int], Fraction] = defaultdict(Fraction)
    played: dict[tuple[int, str], int] = defaultdict(int)

    def apply(event: Row, transfers: list[Row]) -> None:
        if event[kind_at] not in RECORDS or event[undone_at] is not None:
            return
        season = event[season_at]
        unit = transfers[0][unit_at] if transfers else Game(event[game_at]).unit.value
        played[(season, unit)] += 1
        for t in transfers:
            amount = Fraction(t[amount_at])
            if t[payer_at] is not None:
                balances[(season, unit, t[payer_at])] -= amount
            if t[payee_at] is not None:
                balances[(season, unit, t[payee_at])] += amount

    for event in template.events:
        apply(event, template.transfers[event[id_at]])
    for event, transfers in copies:
        seq, season = event[seq_at], event[season_at]
        if seq % MARK_EVERY == 0:
            for (s, unit, pid), value in sorted(balances.items()):
                if s == season and value:
                    yield season, seq, unit, pid, str(value), played[(season, unit)]
        apply(event, transfers)


def _processed(
    template: Template, copies: Sequence[tuple[Row, list[Row]]], chat_id: int, first: int
) -> tuple[list[str], Iterator[Row]]:
    """One claimed update per copied event, as ``Service._write`` leaves it."""
    id_at, created_at = template.event_cols.index("id"), template.event_cols.index("created_at")
    rows = (
        (first + n, chat_id, event[id_at], event[created_at]) for n, (event, _) in enumerate(copies)
    )
    return ["update_id", "chat_id", "event_id", "processed_at"], rows


def _recompute_balances(conn: Connection, chat_id: int) -> None:
    """Balances = the sum of the season's live transfers (what the service maintains)."""
    rows = conn.exec_driver_sql(
        "SELECT t.season_id, t.unit, t.payer_id, t.payee_id, t.amount FROM transfer t "
        "JOIN event e ON e.id = t.event_id WHERE e.chat_id = ? AND e.undone_by IS NULL",
        (chat_id,),
    ).fetchall()
    totals: dict[tuple[int, int, str], Fraction] = defaultdict(Fraction)
    for season_id, unit, payer, payee, amount in rows:
        for player, sign in ((payer, -1), (payee, 1)):
            if player is not None:
                totals[(season_id, player, unit)] += sign * Fraction(amount)
    conn.exec_driver_sql(
        "UPDATE balance SET amount = ? WHERE season_id = ? AND player_id = ? AND unit = ?",
        [(str(v), s, p, u) for (s, p, u), v in totals.items()],
    )


def _scale_stats(conn: Connection, chat_id: int, times: int, mates: bool) -> None:
    """An older revision's kept /stats of the chat's seasons, `times` over (every count is a
    sum over hands)."""
    seasons = "season_id IN (SELECT id FROM season WHERE chat_id = ?)"
    for table, columns in (
        ("stat_player", COUNTERS),
        ("stat_win", ("times",)),
        ("stat_pair", ("times",)),
        ("stat_hands", ("live", "undone")),
        *((("stat_mate", ("hands",)),) if mates else ()),
    ):
        scaled = ", ".join(f"{c} = {c} * ?" for c in columns)
        conn.exec_driver_sql(
            f"UPDATE {table} SET {scaled} WHERE {seasons}", (*[times] * len(columns), chat_id)
        )


def balances(engine: Engine, chat_id: int) -> dict[tuple[str, str], Fraction]:
    """The chat's current-season balances by (player name, unit)."""
    with engine.connect() as conn:
        rows = conn.exec_driver_sql(
            "SELECT p.name, b.unit, b.amount FROM balance b JOIN player p ON p.id = b.player_id "
            "JOIN season s ON s.id = b.season_id WHERE s.chat_id = ? AND s.archived_at IS NULL",
            (chat_id,),
        ).fetchall()
    return {(name, unit): Fraction(amount) for name, unit, amount in rows}
