"""Group → supergroup: a chat's records follow it to its new id, whichever update comes first
(a merge when the new chat has rows already; the rules are in docs/storage.md). The move is
recorded, so a write for the old id processed after it goes to the new chat (`follow`)."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.engine import Connection

from storage.gateway import chats
from storage.models import (
    ChatRow,
    app_link,
    balance,
    chat,
    chat_move,
    event,
    game_table,
    plan,
    player,
    processed_update,
    season,
    transfer,
    utcnow,
)

log = logging.getLogger(__name__)

CHAT_OWNED = (season, player, game_table, event, processed_update, app_link, plan)
#: The fields of a record's data that name players by id (`service.mahjong`, `service.k510`).
PLAYER_FIELDS = frozenset({"winner", "discarder", "sealed", "konger", "source"})
#: The fields that map players' ids (as text) to amounts (a free round's or transfer's net).
PLAYER_KEYED = frozenset({"net", "team1", "team2"})  # team*: a 510K marathon's hands played


def moved_to(db: Connection, chat_id: int) -> int | None:
    """The chat id that `chat_id` became, if it moved."""
    found = db.scalar(select(chat_move.c.new_id).where(chat_move.c.old_id == chat_id))
    return None if found is None else int(found)


def follow(db: Connection, chat_id: int) -> int | None:
    """For a chat row made just now (`chats.lock`): the chat it moved to, if it did; the row
    made for it is removed."""
    target = moved_to(db, chat_id)
    if target is not None:
        db.execute(delete(chat).where(chat.c.id == chat_id))
        log.info("a write for chat %s goes to %s, which it became", chat_id, target)
    return target


def move_chat(db: Connection, old_id: int, new_id: int) -> str:
    """Merge the old chat's rows into the new chat (made if need be); returns "merged", or
    "nothing" when the old chat has no records (none, or moved already). Both chat rows are locked
    first (in id order), so the two migration messages and the chat's writes queue up."""
    if old_id == new_id:
        return "nothing"
    for chat_id in sorted((old_id, new_id)):  # the new chat's row is made if need be
        if chat_id == new_id or chats.get_chat(db, chat_id) is not None:
            chats.lock(db, chat_id, 0, None)
    if moved_to(db, old_id) is None:
        db.execute(insert(chat_move).values(old_id=old_id, new_id=new_id))
    old, new = chats.get_chat(db, old_id), chats.get_chat(db, new_id)
    if old is None or new is None:
        log.info("chat %s moved to %s: no records to move", old_id, new_id)
        return "nothing"
    _merge(db, old, new)
    return "merged"


def _merge(db: Connection, old: ChatRow, new: ChatRow) -> None:
    shift_seq = db.scalar(
        select(func.coalesce(func.max(event.c.seq), 0)).where(event.c.chat_id == old.id)
    )
    moved_events = db.scalar(select(func.count()).where(event.c.chat_id == new.id))
    # The new chat's events after the old chat's (through negatives: no collision on the way).
    db.execute(update(event).where(event.c.chat_id == new.id).values(seq=-event.c.seq))
    db.execute(update(event).where(event.c.chat_id == new.id).values(seq=shift_seq - event.c.seq))
    seasons = _merge_seasons(db, old.id, new.id)
    players = _merge_players(db, old.id, new.id)
    _merge_balances(db, seasons, players)
    topics_of_new = select(game_table.c.thread_id).where(
        game_table.c.chat_id == new.id, game_table.c.closed_at.is_(None)
    )
    db.execute(
        update(game_table)
        .where(
            game_table.c.chat_id == old.id,
            game_table.c.closed_at.is_(None),
            game_table.c.thread_id.in_(topics_of_new),
        )
        .values(closed_at=utcnow())
    )
    db.execute(
        update(chat)
        .where(chat.c.id == new.id)
        .values(
            lang=new.lang or old.lang,
            stake=new.stake if new.stake is not None else old.stake,
            stakes=old.stakes | new.stakes,
            sisuang=old.sisuang,
            zerosum=old.zerosum,
            created_at=select(chat.c.created_at).where(chat.c.id == old.id).scalar_subquery(),
        )
    )
    # A topic's Mini App link of the old chat (posted first) stays; the new chat's gives way.
    topics_of_old = select(app_link.c.thread_id).where(app_link.c.chat_id == old.id)
    db.execute(
        delete(app_link).where(
            app_link.c.chat_id == new.id, app_link.c.thread_id.in_(topics_of_old)
        )
    )
    for table in CHAT_OWNED:
        db.execute(update(table).where(table.c.chat_id == old.id).values(chat_id=new.id))
    db.execute(delete(chat).where(chat.c.id == old.id))
    last = select(func.max(season.c.number)).where(season.c.chat_id == new.id).scalar_subquery()
    db.execute(  # only the last season stays open
        update(season)
        .where(season.c.chat_id == new.id, season.c.archived_at.is_(None), season.c.number < last)
        .values(archived_at=utcnow())
    )
    log.info(
        "chat %s merged into %s, which had %s event(s) already: renumbered after the old"
        " chat's %s; seasons %s and players %s joined",
        old.id,
        new.id,
        moved_events or 0,
        shift_seq,
        seasons or "-",
        players or "-",
    )


def _merge_seasons(db: Connection, old_id: int, new_id: int) -> dict[int, int]:
    """Number the new chat's seasons after the old chat's; its first joins the old chat's open
    season. Returns {merged season id: the old season it joined}."""
    by_number = season.c.number
    old = db.execute(
        select(season.c.id, by_number, season.c.archived_at)
        .where(season.c.chat_id == old_id)
        .order_by(by_number)
    ).all()
    new = list(
        db.scalars(select(season.c.id).where(season.c.chat_id == new_id).order_by(by_number))
    )
    last = old[-1][1] if old else 0
    open_old = old[-1][0] if old and old[-1][2] is None else None
    joined: dict[int, int] = {}
    if new and open_old is not None:
        joined[new[0]] = open_old
        new = new[1:]
    db.execute(update(season).where(season.c.chat_id == new_id).values(number=-by_number))
    for offset, season_id in enumerate(new, start=1):
        db.execute(update(season).where(season.c.id == season_id).values(number=last + offset))
    for gone, kept in joined.items():
        for table in (event, transfer, game_table):
            db.execute(update(table).where(table.c.season_id == gone).values(season_id=kept))
    return joined


def _merge_players(db: Connection, old_id: int, new_id: int) -> dict[int, int]:
    """A member with a player in both chats keeps the old one: the new one's records, seats and
    the seats named in its hands' data move to it. Returns {new player id: old}."""
    mine = player.alias("o")
    pairs = db.execute(
        select(player.c.id, mine.c.id)
        .join(mine, mine.c.user_id == player.c.user_id)
        .where(player.c.chat_id == new_id, mine.c.chat_id == old_id)
    )
    joined = {int(n): int(o) for n, o in pairs}
    if not joined:
        return joined
    for gone, kept in joined.items():
        for column in (transfer.c.payer_id, transfer.c.payee_id):
            db.execute(update(transfer).where(column == gone).values({column: kept}))
    for event_id, data in db.execute(
        select(event.c.id, event.c.data).where(event.c.chat_id == new_id)
    ):
        remapped = _players_renamed(data or {}, joined)
        if remapped != data:
            db.execute(update(event).where(event.c.id == event_id).values(data=remapped))
    for table_id, seats in db.execute(
        select(game_table.c.id, game_table.c.seats).where(game_table.c.chat_id == new_id)
    ):
        if any(pid in joined for pid in seats):
            db.execute(
                update(game_table)
                .where(game_table.c.id == table_id)
                .values(seats=[joined.get(pid, pid) for pid in seats])
            )
    return joined


def merge_player(db: Connection, chat_id: int, gone: int, kept: int) -> None:
    """(`/merge`) Player `gone` of the chat becomes `kept`: transfers, the players named in
    records' data, seats and balances (amounts and pars) move to `kept`, and `gone` is
    deleted. What the views compute from the ledger follows."""
    joined = {gone: kept}
    for column in (transfer.c.payer_id, transfer.c.payee_id):
        db.execute(update(transfer).where(column == gone).values({column: kept}))
    for event_id, data in db.execute(
        select(event.c.id, event.c.data).where(event.c.chat_id == chat_id)
    ):
        remapped = _players_renamed(data or {}, joined)
        if remapped != data:
            db.execute(update(event).where(event.c.id == event_id).values(data=remapped))
    for table_id, seats in db.execute(
        select(game_table.c.id, game_table.c.seats).where(game_table.c.chat_id == chat_id)
    ):
        if gone in seats:
            db.execute(
                update(game_table)
                .where(game_table.c.id == table_id)
                .values(seats=[kept if pid == gone else pid for pid in seats])
            )
    _merge_balances(db, {}, joined)  # deletes `gone`


def players_of_records(db: Connection, chat_id: int) -> list[set[int]]:
    """For each record of the chat (live or undone), the players it names: those seated at
    it, and those its transfers and data name."""
    named: dict[int, set[int]] = {}
    for event_id, data in db.execute(
        select(event.c.id, event.c.data).where(event.c.chat_id == chat_id)
    ):
        found = named.setdefault(event_id, set())
        _collect(data or {}, found)
    rows = db.execute(
        select(transfer.c.event_id, transfer.c.payer_id, transfer.c.payee_id)
        .join(event, event.c.id == transfer.c.event_id)
        .where(event.c.chat_id == chat_id)
    )
    for event_id, payer, payee in rows:
        named.setdefault(event_id, set()).update(p for p in (payer, payee) if p is not None)
    return list(named.values())


def _collect(value: Any, found: set[int], field: str = "") -> None:
    """The player ids in a record's data (the fields `_players_renamed` maps)."""
    if isinstance(value, dict) and field in PLAYER_KEYED:
        found.update(int(k) for k in value)
    elif isinstance(value, dict):
        for k, v in value.items():
            _collect(v, found, k)
    elif isinstance(value, list):
        if field == "seats":
            found.update(pid for pid in value if isinstance(pid, int))
        else:
            for v in value:
                _collect(v, found)
    elif field in PLAYER_FIELDS and isinstance(value, int):
        found.add(value)


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


def _merge_balances(db: Connection, seasons: dict[int, int], players: dict[int, int]) -> None:
    """Balance rows (amounts and pars) of merged seasons or players are added into the rows they
    joined: every row of either is read, summed by the key it has now, and written anew."""
    if not seasons and not players:
        return
    season_ids, player_ids = [*seasons, *seasons.values()], [*players, *players.values()]
    touched = balance.c.season_id.in_(season_ids) | balance.c.player_id.in_(player_ids)
    totals: dict[tuple[int, int, str], Fraction] = defaultdict(Fraction)
    pars: dict[tuple[int, int, str], Fraction] = defaultdict(Fraction)
    for row in db.execute(select(balance).where(touched)).all():
        pid = players.get(row.player_id, row.player_id)
        key = (seasons.get(row.season_id, row.season_id), pid, row.unit)
        totals[key] += row.amount
        pars[key] += row.par
    db.execute(delete(balance).where(touched))
    keys = ("season_id", "player_id", "unit")
    rows = [
        dict(zip(keys, key, strict=True)) | {"amount": total, "par": pars[key]}
        for key, total in totals.items()
    ]
    if rows:
        db.execute(insert(balance), rows)
    for table, gone in ((season, seasons), (player, players)):
        if gone:
            db.execute(delete(table).where(table.c.id.in_(list(gone))))
