"""Tables and seats: /new, /join, /seats, /dealer, /players, /link."""

from __future__ import annotations

from dataclasses import replace

from scoring.games import EventKind, Game
from service import identity, seating
from service import players as who
from service.admin import require_admin
from service.errors import N_, ServiceError
from service.free_names import season_spelling
from service.replies import Claimable, Linked, NameAsk, NewAsk, TableView
from service.requests import (
    Join,
    Link,
    NewTable,
    PlayerRef,
    RefKind,
    Seats,
    SetDealer,
    ShowPlayers,
)
from service.unit import Tx
from storage.gateway import ledger as book
from storage.gateway import players, tables
from storage.models import PlayerRow, TableRow, utcnow

USAGE_NEW = "/new mahjong | /new 510k | /new 510k3 [marathon] | /new free [name]"


def capacity(table: TableRow) -> int:
    """The most players the table seats."""
    return Game(table.game).seats


def seats_usage(cap: int) -> str:
    return "/seats " + (" ".join("ABCD"[:cap]) if cap <= 4 else "A B [C …]")


#: What a command of a game is called, and how to open a table for it (a command at a table
#: of another game says so).
FAMILIES = {
    Game.MAHJONG: (N_("mahjong"), "/new mahjong"),
    Game.K510: (N_("510K"), "/new 510k | /new 510k3"),
    Game.K510_3: (N_("510K"), "/new 510k | /new 510k3"),
    Game.FREE: (N_("free scoring"), "/new free [name]"),
}


def require_table(tx: Tx, *games: Game) -> TableRow:
    """The open table of this chat or topic, of one of `games`, with every seat taken."""
    table = _open(tx)
    if games and Game(table.game) not in games:
        family, usage = FAMILIES[games[0]]
        raise ServiceError(
            N_(
                "This is a {family} command, and the open table plays {game}. To play {family},"
                " open a table for it first:"
            ),
            usage=usage,
            family=family,
            game=table.game,
        )
    need = Game(table.game).min_seats
    if who.FREE_SEAT in table.seats:
        raise ServiceError(
            N_(
                "Seat {seat} is free: nothing is recorded until someone takes it. Sit down with"
                " /join, or seat a player there:"
            ),
            usage=f"/join · /sub {table.seats.index(who.FREE_SEAT) + 1} 小李",
            seat=table.seats.index(who.FREE_SEAT) + 1,
        )
    if len(table.seats) < need:
        raise ServiceError(
            N_("The table has {n} of {cap} players. Sit down with /join, or set all seats:"),
            usage=seats_usage(capacity(table)),
            n=len(table.seats),
            cap=need,
        )
    return table


def view(
    tx: Tx, table: TableRow, event: str, who_: str = "", left: tuple[str, ...] = ()
) -> TableView:
    found = {p.id: p.name for p in who.seated(tx, table)}
    names = [found.get(pid) for pid in table.seats]  # a seat left by /leave: None
    shown = max(len(names), Game(table.game).min_seats)  # a free table shows its empty minimum
    seats = tuple(names) + (None,) * (shown - len(names))
    dealer = None
    if table.game == Game.MAHJONG and len(names) == capacity(table):
        dealer = names[table.dealer]
    return TableView(
        game=table.game,
        marathon=table.marathon,
        sisuang=table.sisuang,
        zerosum=table.zerosum,
        seats=seats,
        dealer=dealer,
        event=event,
        who=who_,
        left=left,
        name=table.name,
    )


def new_table(tx: Tx, req: NewTable) -> TableView | NewAsk:
    """Open a table. The players of the one it replaces keep their seats, as many as fit (and
    the dealer, mahjong after mahjong). Replacing loses whoever finds no seat, the unpaid kongs
    of the hand being played and a running marathon: then it asks first."""
    if req.marathon and req.game is Game.MAHJONG:
        raise ServiceError(N_("A marathon is a 510K option."), usage=USAGE_NEW)
    old = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if req.replaces is not None and (old is None or req.replaces != old.id):
        raise ServiceError(N_("The table changed since this was asked; ask again with /new."))
    if old is not None:
        old.seats = [pid for pid in old.seats if pid != who.FREE_SEAT]
    names = [p.name for p in who.seated(tx, old)] if old is not None else []
    kept = names[: req.game.seats]
    if old is not None and not req.confirm:
        kongs = len(pending_kongs(tx, old))
        marathon = old.marathon and _marathon_running(tx, old)
        if len(kept) < len(names) or kongs or marathon:
            return NewAsk(
                request=req,
                replaces=old.id,
                game=old.game,
                seated=tuple(names),
                kept=tuple(kept),
                kongs=kongs,
                marathon=marathon,
            )
    tables.close_table(tx.db, tx.chat.id, tx.ctx.thread_id, utcnow())
    table = tables.add_table(
        tx.db,
        chat_id=tx.chat.id,
        thread_id=tx.ctx.thread_id,
        season_id=tx.season.id,
        game=req.game.value,
        marathon=req.marathon,
        sisuang=tx.chat.sisuang if req.sisuang is None else req.sisuang,
        zerosum=tx.chat.zerosum if req.zerosum is None else req.zerosum,
        name=season_spelling(tx, req.name) if req.name else "",
    )
    if old is not None and kept:
        table.seats = old.seats[: len(kept)]
        same = old.game == table.game == Game.MAHJONG and len(kept) == capacity(table)
        table.dealer = old.dealer if same else 0
        tables.set_seats(tx.db, table)
    return view(tx, table, "opened", left=tuple(names[len(kept) :]))


def pending_kongs(tx: Tx, table: TableRow) -> list[dict[str, int | str | None]]:
    """The kongs recorded in the hand being played (player ids, oldest first)."""
    if table.game != Game.MAHJONG:
        return []
    tail = book.live_tail(tx.db, table.id, tx.season.id)
    return [e.data["kong"] for e in reversed(tail) if e.kind == EventKind.KONG]


def _marathon_running(tx: Tx, table: TableRow) -> bool:
    last = book.last_live_event(tx.db, table.id, tx.season.id, (EventKind.HAND,))
    info = last.data.get("marathon") if last is not None else None
    return info is not None and not info["finished"]


def _open(tx: Tx) -> TableRow:
    """The open table of the chat or topic: as the write's first statement read it, when this
    is the first look (every use case's first step), else read now."""
    if tx.table_fresh:
        table, tx.table_fresh = tx.table, False
    else:
        table = tables.open_table(tx.db, tx.chat.id, tx.ctx.thread_id)
    if table is None:
        raise ServiceError(N_("No table is open here. Open one first:"), usage=USAGE_NEW)
    return table


def join(tx: Tx, req: Join) -> TableView | NameAsk:
    """`/join`: the sender sits down; `/join 小李`: a guest does (asked first when the name is
    one letter from a known player's); a free seat is taken first."""
    table = _open(tx)
    new: tuple[str, ...] = ()
    if req.guest is None and req.player_id is None:
        player = who.sender(tx)
    else:
        ref = PlayerRef(RefKind.NEW if req.new else RefKind.NAME, req.guest or "")
        if req.player_id is not None:
            ref = PlayerRef(RefKind.ID, str(req.player_id))
        known = players.players_of_chat(tx.db, tx.chat.id)
        found = seating.resolve(tx, ref, known)
        ask = seating.ask_first(
            (ref,), (found,), known, table.seats, lambda refs: _join_again(refs[0]), _user(tx)
        )
        if ask is not None:
            return ask
        new = seating.new_names((found,))
        player = seating.made(tx, found)
    if player.id in table.seats:
        if (req.guest is not None or req.player_id) and _claimable(tx, player):
            raise ServiceError(
                N_(
                    "{name} already sits at seat {seat}. If you are {name}, say so (from then"
                    " on 我/me is you):"
                ),
                usage=f"/iam {player.name}",
                name=player.name,
                seat=table.seats.index(player.id) + 1,
            )
        raise ServiceError(
            N_("{name} already sits at seat {seat}."),
            name=player.name,
            seat=table.seats.index(player.id) + 1,
        )
    if who.FREE_SEAT in table.seats:
        at = table.seats.index(who.FREE_SEAT)
        table.seats = [*table.seats[:at], player.id, *table.seats[at + 1 :]]
    elif len(table.seats) >= capacity(table):
        raise ServiceError(
            N_(
                "The table is full: all {n} seats are taken, so {name} cannot join. To play"
                " in someone's place, say whose (/sub <player> <name>), e.g.:"
            ),
            usage=f"/sub {who.seated(tx, table)[-1].name} {player.name}",
            n=capacity(table),
            name=player.name,
        )
    else:
        table.seats = [*table.seats, player.id]
    who.require_distinct(who.seated(tx, table))
    tables.set_seats(tx.db, table)
    joined = replace(view(tx, table, "joined", player.name), new=new)
    guest = player if req.guest is not None or req.player_id else identity.guest_like(tx, player)
    return identity.offer_claim(tx, joined, guest)


def _join_again(ref: PlayerRef) -> Join:
    """`/join` with the answer to "did you mean …?"."""
    if ref.kind is RefKind.ID:
        return Join(player_id=int(ref.value))
    return Join(ref.value, new=ref.kind is RefKind.NEW)


def _user(tx: Tx) -> int | None:
    return tx.ctx.actor.user_id


def _claimable(tx: Tx, player: PlayerRow) -> bool:
    """A guest nobody has claimed, and the sender could be."""
    return player.user_id is None and player.username is None and tx.ctx.actor.user_id is not None


def seats(tx: Tx, req: Seats) -> TableView | NameAsk:
    table = _open(tx)
    cap = capacity(table)
    if Game(table.game) is Game.FREE and not 2 <= len(req.names) <= cap:
        raise ServiceError(
            N_("A free table seats 2 to 10 players; {n} were given."),
            usage=seats_usage(cap),
            n=len(req.names),
        )
    if Game(table.game) is not Game.FREE and len(req.names) != cap:
        raise ServiceError(
            N_("{game} needs exactly {cap} players in seat order; {n} were given."),
            usage=seats_usage(cap),
            game=table.game,
            cap=cap,
            n=len(req.names),
        )
    known = players.players_of_chat(tx.db, tx.chat.id)
    found = [seating.resolve(tx, ref, known) for ref in req.names]
    ask = seating.ask_first(req.names, found, known, (), Seats, _user(tx))
    if ask is not None:
        return ask
    typed = [f.name.casefold() for f in found if isinstance(f, seating.NewGuest)]
    if len(set(typed)) != len(typed):
        raise ServiceError(N_("A player cannot take two seats."), usage="/seats A B C D")
    chosen = [seating.made(tx, f) for f in found]
    ids = [p.id for p in chosen]
    if len(set(ids)) != len(ids):
        raise ServiceError(N_("A player cannot take two seats."), usage="/seats A B C D")
    _keep_kongers(tx, table, ids)
    who.require_distinct(chosen)
    table.dealer = _dealer_after(table, ids)
    table.seats = ids
    tables.set_seats(tx.db, table)
    seated = view(tx, table, "seated")
    claims = tuple(
        Claimable(p.id, 0, p.name) for p in chosen if p.user_id is None and p.username is None
    )
    return replace(seated, new=seating.new_names(found), claims=claims)


def _dealer_after(table: TableRow, ids: list[int]) -> int:
    """A seat change is not a hand: the dealer deals on while seated, wherever they sit now;
    a dealer who left leaves the deal to whoever takes the seat. A table being filled for the
    first time starts at seat 1."""
    full = len(table.seats) == capacity(table) and who.FREE_SEAT not in table.seats
    if table.game != Game.MAHJONG or not full:
        return 0 if who.FREE_SEAT not in table.seats else table.dealer
    dealer = table.seats[table.dealer]
    return ids.index(dealer) if dealer in ids else table.dealer


def _keep_kongers(tx: Tx, table: TableRow, ids: list[int]) -> None:
    """A kong is paid when its hand ends, by and to the people it names: none of them may
    leave the table before that (they may change seats)."""
    involved = {
        pid
        for kong in pending_kongs(tx, table)
        for pid in (kong["konger"], kong["source"])
        if isinstance(pid, int)
    }
    leaving = [p.name for p in who.seated(tx, table) if p.id in involved - set(ids)]
    if leaving:
        raise ServiceError(
            N_(
                "{names} made or paid a kong in the hand being played and would leave the table."
                " Finish the hand first (/hu or /liuju), or /undo the kong, then change seats."
            ),
            names=", ".join(leaving),
        )


def set_dealer(tx: Tx, req: SetDealer) -> TableView:
    table = require_table(tx, Game.MAHJONG)
    table.dealer = who.seat_of(tx, table, req.player)
    tables.set_dealer(tx.db, table.id, table.dealer)
    return view(tx, table, "dealer", who.seated(tx, table)[table.dealer].name)


def show_players(tx: Tx, req: ShowPlayers) -> TableView:
    return view(tx, _open(tx), "players")


def link(tx: Tx, req: Link) -> Linked:
    require_admin(tx)
    if req.user.kind is not RefKind.USERNAME:
        raise ServiceError(N_("Link a guest to an @username:"), usage="/link 小李 @user")
    known = players.players_of_chat(tx.db, tx.chat.id)
    guest = next((p for p in known if p.name.casefold() == req.guest.casefold()), None)
    if guest is None or guest.user_id is not None:
        raise ServiceError(N_("No guest named '{name}' here."), name=req.guest)
    taken = [
        p
        for p in known
        if (p.username or "").casefold() == req.user.value.casefold() and p.id != guest.id
    ]
    if taken:
        raise ServiceError(
            N_("@{user} already plays here as {name}."), user=req.user.value, name=taken[0].name
        )
    guest.username = req.user.value
    players.save_player(tx.db, guest)
    return Linked(guest=guest.name, username=req.user.value)
