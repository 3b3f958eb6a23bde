"""/mine: a member's own account in a group this season, for them alone: their balance per
game (as /standings), their last records with what each did to them (as /history), and what
they pay or get at /settle money (the same plan, their lines only). In the private chat, of
each group where a player is theirs."""

from __future__ import annotations

from fractions import Fraction

from sqlalchemy.engine import Connection

from scoring.games import Unit
from service.hand_views import seat_ids
from service.ledger import player_names
from service.names import clean_title
from service.replies import MineGroup, MineHand, MineView
from service.squaring import in_money, plan, squared
from storage.gateway import chats, players
from storage.gateway import ledger as book
from storage.models import PlayerRow

HANDS_SHOWN = 5  # the member's last records
HANDS_READ = 60  # of the season's last records (a member who sat out longer sees fewer)


def mine(db: Connection, user_id: int, chat_id: int | None) -> MineView:
    """The account of the Telegram user `user_id` in the group `chat_id` (None: in each group
    where a player is theirs, asked in the private chat)."""
    if chat_id is None:
        found = players.players_of_user(db, user_id)
    else:
        player = players.player_of_user(db, chat_id, user_id)
        found = [player] if player is not None else []
    groups = [g for g in (_group(db, p) for p in found) if g is not None]
    groups.sort(key=lambda g: ((g.title or "").casefold(), g.name.casefold()))
    return MineView(groups=tuple(groups), in_group=chat_id is not None)


def _group(db: Connection, me: PlayerRow) -> MineGroup | None:
    chat = chats.get_chat(db, me.chat_id)
    season = chats.current_season(db, me.chat_id)
    if chat is None or season is None:
        return None
    rows = book.balances(db, season.id)
    balances = tuple(
        (row.unit, Fraction(row.amount))
        for row in sorted(rows, key=lambda row: Unit.order(row.unit))
        if row.player_id == me.id
    )
    names = player_names(db, list({row.player_id for row in rows} | {me.id}))
    money = in_money(chat, squared(rows), names)
    mine = names[me.id]  # told apart from any namesake
    transfers = plan(money.cents, names)
    return MineGroup(
        title=clean_title(chat.title),
        name=me.name,
        season=season.number,
        balances=balances,
        hands=_hands(db, season.id, me.id),
        pays=tuple((payee, amount) for payer, payee, amount in transfers if payer == mine),
        gets=tuple((payer, amount) for payer, payee, amount in transfers if payee == mine),
        counted=money.games,
        tz=chat.tz,
    )


def _hands(db: Connection, season_id: int, player_id: int) -> tuple[MineHand, ...]:
    """The player's last live records this season, newest first, with their net of each."""
    events = [e for e in book.hands(db, season_id, limit=HANDS_READ) if e.undone_by is None]
    by_event = book.transfers_of(db, [e.id for e in events])
    shown: list[MineHand] = []
    for event in events:
        transfers = by_event.get(event.id, [])
        involved = any(player_id in (t.payer_id, t.payee_id) for t in transfers)
        if not transfers or not (involved or player_id in seat_ids(event)):
            continue
        net = sum(
            (
                Fraction(t.amount) * ((t.payee_id == player_id) - (t.payer_id == player_id))
                for t in transfers
            ),
            Fraction(0),
        )
        shown.append(MineHand(event.hand_no, event.created_at, event.text, transfers[0].unit, net))
        if len(shown) == HANDS_SHOWN:
            break
    return tuple(shown)
