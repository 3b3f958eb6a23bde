"""Group → supergroup: a chat's records follow it to its new id, whichever update comes first.

Telegram sends `migrate_to_chat_id` in the old group and `migrate_from_chat_id` in the new
supergroup; with several workers a command in the supergroup can be processed before either.
So the move is a merge: when the new chat already has rows, the old chat's rows join them.

- Events: the old chat's keep their numbers (they came first); the new chat's follow them
  (`seq` shifted by the old chat's count), so it stays gapless and unique. Hand numbers count
  per table and season and tables are not shared, so every table keeps its own numbering
  (also in a season merged into another): (table, season, hand number) stays unique.
- Seasons: the new chat's first season continues the old chat's open one (its hands, tables
  and balances join it); later ones are numbered after. Only the last season stays open.
- Players: a member who has a player in both chats keeps the old one (records, seats and
  balances of the new one move to it); guests stay as they are.
- Open tables: one per topic; where both chats have one, the new chat's (opened later) stays.
- Settings: the old chat's, but a language or stake set in the new chat wins.
- Balance marks (/chart) of the seasons whose events moved are written anew.

The move is recorded (`chat_move`), so a write for the old id that is processed after it goes
to the new chat too.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from storage.gateway import marks, stats
from storage.gateway.chats import (
    get_chat,
    lock_chat,
    lock_chat_created,
    lock_with_prologue_row,
    prologue,
    prologue_from,
    prologue_with_chat,
)
from storage.rows import ChatRow, SeasonRow, TableRow
from storage.sql import ReadKey, Sql, placeholders

log = logging.getLogger(__name__)

CHAT_OWNED = ("season", "player", "game_table", "event", "processed_update", "app_link")


def moved_to(db: Sql, chat_id: int) -> int | None:
    """The chat id that `chat_id` became, if it moved."""
    row = db.row("SELECT new_id FROM chat_move WHERE old_id = ?", (chat_id,))
    return None if row is None else int(row[0])


def lock_followed(db: Sql, chat_id: int) -> ChatRow:
    """`chats.lock_chat`, but a chat that moved is locked at its new id. Only a chat row made
    just now is looked up (an existing chat did not move): no cost on the hot path."""
    chat, created = lock_chat_created(db, chat_id)
    return _followed(db, chat, created) or chat


def _followed(db: Sql, chat: ChatRow, created: bool) -> ChatRow | None:
    """What `chat` (its row just locked; made now if `created`) moved to, locked; None if it did
    not move. The row made for it is removed."""
    target = moved_to(db, chat.id) if created else None
    if target is None:
        return None
    db.run("DELETE FROM chat WHERE id = ?", (chat.id,))
    log.info("a write for chat %s goes to %s, which it became", chat.id, target)
    return lock_chat(db, target)


def lock_with_prologue(
    db: Sql, chat_id: int, thread_id: int, update_id: int | None, ahead: Sequence[ReadKey] = ()
) -> tuple[ChatRow, SeasonRow, tuple[int | None] | None, TableRow | None]:
    """What a write does first: `lock_followed`, then `chats.prologue` of the chat it locked:
    in one statement on SQLite (a chat that has its row: it did not move), in one round trip on
    PostgreSQL, with the reads `ahead` (`storage.read_ahead`; a chat that moved is read again
    at its new id)."""
    if db.pg:
        chat, created, row = lock_with_prologue_row(db, chat_id, thread_id, update_id, ahead)
        target = _followed(db, chat, created)
        if target is None:
            return chat, *prologue_from(db, chat_id, row)
        return target, *prologue(db, target.id, thread_id, update_id)
    if found_with_chat := prologue_with_chat(db, chat_id, thread_id, update_id):
        return found_with_chat
    chat = lock_followed(db, chat_id)
    return chat, *prologue(db, chat.id, thread_id, update_id)


def move_chat(db: Sql, old_id: int, new_id: int) -> str:
    """Merge the old chat's rows into the new chat (made if need be); returns "merged", or
    "nothing" when the old chat has no records (none, or moved already). Both chat rows are locked
    first (in id order), so the two migration messages and the chat's writes queue up."""
    if old_id == new_id:
        return "nothing"
    for chat_id in sorted((old_id, new_id)):  # the new chat's row is made if need be
        if chat_id == new_id or get_chat(db, chat_id) is not None:
            lock_chat(db, chat_id)
    if moved_to(db, old_id) is None:
        db.run("INSERT INTO chat_move (old_id, new_id) VALUES (?, ?)", (old_id, new_id))
    old, new = get_chat(db, old_id), get_chat(db, new_id)
    if old is None or new is None:
        log.info("chat %s moved to %s: no records to move", old_id, new_id)
        return "nothing"
    _merge(db, old, new)
    return "merged"


def _reassign(db: Sql, old_id: int, new_id: int) -> None:
    for table in CHAT_OWNED:
        db.run(f"UPDATE {table} SET chat_id = ? WHERE chat_id = ?", (new_id, old_id))
    db.run("DELETE FROM chat WHERE id = ?", (old_id,))


def _merge(db: Sql, old: ChatRow, new: ChatRow) -> None:
    shift_seq = old.next_seq - 1
    moved_events = db.row("SELECT count(*) FROM event WHERE chat_id = ?", (new.id,))
    # The new chat's events after the old chat's (through negatives: no collision on the way).
    # Hand numbers stay: they count per table and season (see the module's note).
    db.run("UPDATE event SET seq = -seq WHERE chat_id = ?", (new.id,))
    db.run("UPDATE event SET seq = ? - seq WHERE chat_id = ?", (shift_seq, new.id))
    renumbered = [sid for (sid,) in db.rows("SELECT id FROM season WHERE chat_id = ?", (new.id,))]
    seasons = _merge_seasons(db, old.id, new.id)
    players = _merge_players(db, old.id, new.id)
    stats.fold(db, seasons, players)
    marks.forget(db, [*renumbered, *seasons.values()])
    _merge_balances(db, seasons, players)
    for season_id in sorted({seasons.get(s, s) for s in renumbered}):
        marks.fill(db, season_id)
    db.run(
        "UPDATE game_table SET closed_at = CURRENT_TIMESTAMP WHERE chat_id = ?"
        " AND closed_at IS NULL AND thread_id IN (SELECT thread_id FROM game_table"
        " WHERE chat_id = ? AND closed_at IS NULL)",
        (old.id, new.id),
    )
    db.run(
        "UPDATE chat SET lang = ?, stake = ?, sisuang = ?, zerosum = ?, next_seq = ?,"
        " created_at = (SELECT created_at FROM chat WHERE id = ?) WHERE id = ?",
        (
            new.lang or old.lang,
            str(new.stake or old.stake) if (new.stake or old.stake) is not None else None,
            old.sisuang,
            old.zerosum,
            old.next_seq + new.next_seq - 1,
            old.id,
            new.id,
        ),
    )
    # A topic's Mini App link of the old chat (posted first) stays; the new chat's gives way.
    db.run(
        "DELETE FROM app_link WHERE chat_id = ? AND thread_id IN"
        " (SELECT thread_id FROM app_link WHERE chat_id = ?)",
        (new.id, old.id),
    )
    _reassign(db, old.id, new.id)
    # Only the last season stays open.
    db.run(
        "UPDATE season SET archived_at = CURRENT_TIMESTAMP WHERE chat_id = ?"
        " AND archived_at IS NULL AND number < (SELECT max(number) FROM season WHERE chat_id = ?)",
        (new.id, new.id),
    )
    log.info(
        "chat %s merged into %s, which had %s event(s) already: renumbered after the old"
        " chat's %s; seasons %s and players %s joined",
        old.id,
        new.id,
        moved_events[0] if moved_events else 0,
        shift_seq,
        seasons or "-",
        players or "-",
    )


def _merge_seasons(db: Sql, old_id: int, new_id: int) -> dict[int, int]:
    """Number the new chat's seasons after the old chat's; its first joins the old chat's open
    season. Returns {merged season id: the old season it joined}."""
    old = db.rows(
        "SELECT id, number, archived_at FROM season WHERE chat_id = ? ORDER BY number", (old_id,)
    )
    new = db.rows("SELECT id FROM season WHERE chat_id = ? ORDER BY number", (new_id,))
    last = old[-1][1] if old else 0
    open_old = old[-1][0] if old and old[-1][2] is None else None
    joined: dict[int, int] = {}
    if new and open_old is not None:
        joined[new[0][0]] = open_old
        new = new[1:]
    db.run("UPDATE season SET number = -number WHERE chat_id = ?", (new_id,))
    for offset, (season_id,) in enumerate(new, start=1):
        db.run("UPDATE season SET number = ? WHERE id = ?", (last + offset, season_id))
    for gone, kept in joined.items():
        for table in ("event", "transfer", "game_table"):
            db.run(f"UPDATE {table} SET season_id = ? WHERE season_id = ?", (kept, gone))
    return joined


def _merge_players(db: Sql, old_id: int, new_id: int) -> dict[int, int]:
    """A member with a player in both chats keeps the old one: the new one's records, seats and
    the seats named in its hands' data move to it. Returns {new player id: old}."""
    pairs = db.rows(
        "SELECT n.id, o.id FROM player n JOIN player o ON o.user_id = n.user_id"
        " WHERE n.chat_id = ? AND o.chat_id = ?",
        (new_id, old_id),
    )
    joined = {int(n): int(o) for n, o in pairs}
    for gone, kept in joined.items():
        db.run("UPDATE transfer SET payer_id = ? WHERE payer_id = ?", (kept, gone))
        db.run("UPDATE transfer SET payee_id = ? WHERE payee_id = ?", (kept, gone))
    if joined:
        for event_id, data in db.rows("SELECT id, data FROM event WHERE chat_id = ?", (new_id,)):
            record = db.json_out(data) or {}
            remapped = _players_renamed(record, joined)
            if remapped != record:
                db.run("UPDATE event SET data = ? WHERE id = ?", (db.json_in(remapped), event_id))
        for table_id, seats in db.rows(
            "SELECT id, seats FROM game_table WHERE chat_id = ?", (new_id,)
        ):
            ids = [int(i) for i in db.json_out(seats)]
            if any(i in joined for i in ids):
                remapped = db.json_in([joined.get(i, i) for i in ids])
                db.run("UPDATE game_table SET seats = ? WHERE id = ?", (remapped, table_id))
    return joined


#: The fields of a record's data that name players by id (`service.mahjong`, `service.k510`).
PLAYER_FIELDS = frozenset({"winner", "discarder", "sealed", "konger", "source"})
#: The fields that map players' ids (as text) to amounts (`service.free`: a round's or a
#: transfer's net per player).
PLAYER_KEYED = frozenset({"net"})


def _players_renamed(value: Any, joined: Mapping[int, int], field: str = "") -> Any:
    """A record's data with merged players' ids replaced by the ids they joined."""
    if isinstance(value, dict) and field in PLAYER_KEYED:
        out: dict[str, Fraction] = {}
        for k, v in value.items():
            key = str(joined.get(int(k), int(k)))
            out[key] = out.get(key, Fraction(0)) + Fraction(v)
        return {k: str(v) for k, v in out.items()}
    if isinstance(value, dict):
        return {k: _players_renamed(v, joined, k) for k, v in value.items()}
    if isinstance(value, list):
        if field == "seats":
            return [joined.get(pid, pid) for pid in value]
        return [_players_renamed(v, joined) for v in value]
    if field in PLAYER_FIELDS and isinstance(value, int):
        return joined.get(value, value)
    return value


def _merge_balances(db: Sql, seasons: dict[int, int], players: dict[int, int]) -> None:
    """Balance rows of merged seasons or players are added into the rows they joined."""
    if not seasons and not players:
        return
    keys = list(seasons)
    pids = list(players)
    rows = db.rows(
        "SELECT season_id, player_id, unit, amount FROM balance WHERE season_id IN"
        f" ({placeholders(len(keys)) if keys else 'NULL'}) OR player_id IN"
        f" ({placeholders(len(pids)) if pids else 'NULL'})",
        [*keys, *pids],
    )
    totals: dict[tuple[int, int, str], Fraction] = {}
    for season_id, player_id, unit, amount in rows:
        sid, pid = int(season_id), int(player_id)
        key = (seasons.get(sid, sid), players.get(pid, pid), str(unit))
        totals[key] = totals.get(key, Fraction(0)) + Fraction(amount)
        db.run(
            "DELETE FROM balance WHERE season_id = ? AND player_id = ? AND unit = ?",
            (season_id, player_id, unit),
        )
    for (season_id, player_id, unit), amount in totals.items():
        found = db.row(
            "SELECT amount FROM balance WHERE season_id = ? AND player_id = ? AND unit = ?",
            (season_id, player_id, unit),
        )
        if found is None:
            db.run(
                "INSERT INTO balance (season_id, player_id, unit, amount) VALUES (?, ?, ?, ?)",
                (season_id, player_id, unit, str(amount)),
            )
        else:
            db.run(
                "UPDATE balance SET amount = ? WHERE season_id = ? AND player_id = ? AND unit = ?",
                (str(Fraction(found[0]) + amount), season_id, player_id, unit),
            )
    _forget(db, "season", seasons)
    _forget(db, "player", players)


def _forget(db: Sql, table: str, merged: Iterable[int]) -> None:
    for row_id in merged:
        db.run(f"DELETE FROM {table} WHERE id = ?", (row_id,))
