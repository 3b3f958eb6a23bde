"""The schema: chats, seasons, players, tables, and an append-only ledger of events. Each table
is described once: where rows are read back, its columns are a plain SQLModel (`ChatRow`…),
which the table class inherits; the schema fills what a new row does not say."""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Index, Table, UniqueConstraint, false, text
from sqlmodel import Field, SQLModel

from storage.types import FractionType


def utcnow() -> datetime:
    return datetime.now(UTC)


NOW = {"server_default": text("CURRENT_TIMESTAMP")}
OFF = {"server_default": false()}


def sql_default(value: str) -> dict[str, Any]:
    """A column's default as SQL text (`'[]'`, `0`…)."""
    return {"server_default": text(value)}


class ChatRow(SQLModel):
    """A Telegram chat and its settings. Its row is locked by every write of the chat."""

    id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    lang: str | None = None
    stake: Fraction | None = Field(default=None, sa_type=FractionType)
    sisuang: bool = Field(default=False, sa_column_kwargs=OFF)
    zerosum: bool = Field(default=False, sa_column_kwargs=OFF)
    tz: str = Field(default="UTC", sa_column_kwargs=sql_default("'UTC'"))  # IANA zone of times
    title: str | None = None  # the group's title as last seen (/me names groups by it)
    rating: bool = Field(default=False, sa_column_kwargs=OFF)  # /rating kept and shown
    stakes: dict[str, str] = Field(  # a game's own stake: unit → decimal text (revision 0019)
        default_factory=dict, sa_type=JSON, sa_column_kwargs=sql_default("'{}'")
    )
    created_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)
    # /set idle: minutes without a record after which a table closes itself at the next
    # command (0: never); revision 0024
    idle: int = Field(default=360, sa_column_kwargs=sql_default("360"))
    # the chat's record number where its sitting began (a table nobody closed closed itself:
    # /summary reads no further back); revision 0024
    sitting_from: int = Field(default=0, sa_column_kwargs=sql_default("0"))


class Chat(ChatRow, table=True):
    pass


class SeasonRow(SQLModel):
    id: int = Field(primary_key=True)
    chat_id: int = Field(sa_type=BigInteger, foreign_key="chat.id", index=True)
    number: int
    opened_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)
    archived_at: datetime | None = None


class Season(SeasonRow, table=True):
    __table_args__ = (UniqueConstraint("chat_id", "number"),)


class PlayerRow(SQLModel):
    """A person at the table: a Telegram user, or a guest (no user id) who may be linked later."""

    id: int = Field(primary_key=True)
    chat_id: int = Field(sa_type=BigInteger, foreign_key="chat.id", index=True)
    name: str
    user_id: int | None = Field(default=None, sa_type=BigInteger)
    username: str | None = None
    created_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)
    named: bool = Field(default=False, sa_column_kwargs=OFF)  # /rename: not the Telegram name


class Player(PlayerRow, table=True):
    __table_args__ = (UniqueConstraint("chat_id", "user_id"), Index("ix_player_user", "user_id"))


class TableRow(SQLModel):
    """An open (or closed) table of one game in a chat or forum topic; seats are player ids."""

    id: int = Field(primary_key=True)
    chat_id: int = Field(sa_type=BigInteger, foreign_key="chat.id", index=True)
    thread_id: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=sql_default("0"))
    season_id: int = Field(foreign_key="season.id")
    game: str  # scoring.games.Game
    name: str = Field(default="", sa_column_kwargs=sql_default("''"))  # a free game's name
    marathon: bool = Field(default=False, sa_column_kwargs=OFF)
    sisuang: bool = Field(default=False, sa_column_kwargs=OFF)
    zerosum: bool = Field(default=False, sa_column_kwargs=OFF)
    seats: list[int] = Field(
        default_factory=list, sa_type=JSON, sa_column_kwargs=sql_default("'[]'")
    )
    dealer: int = Field(default=0, sa_column_kwargs=sql_default("0"))  # the dealer's seat index
    opened_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)
    closed_at: datetime | None = None


class GameTable(TableRow, table=True):
    __tablename__ = "game_table"
    __table_args__ = (
        Index(
            "uq_open_table",
            "chat_id",
            "thread_id",
            unique=True,
            sqlite_where=text("closed_at IS NULL"),
            postgresql_where=text("closed_at IS NULL"),
        ),
    )


class EventRow(SQLModel):
    """One recorded change: a hand, a kong, a transfer or an undo. Never deleted; an undone
    event points at the undo that reverted it."""

    id: int = Field(primary_key=True)
    chat_id: int = Field(sa_type=BigInteger, foreign_key="chat.id")  # indexed by (chat_id, seq)
    season_id: int = Field(foreign_key="season.id")  # indexed by ix_event_season_kind_seq
    table_id: int | None = Field(default=None, foreign_key="game_table.id")
    seq: int
    hand_no: int | None = None  # hands and transfers: 1, 2, … per table and season
    kind: str  # scoring.games.EventKind
    game: str  # scoring.games.Game
    text: str = Field(default="", sa_column_kwargs=sql_default("''"))
    data: dict[str, Any] = Field(
        default_factory=dict, sa_type=JSON, sa_column_kwargs=sql_default("'{}'")
    )
    recorded_by: int | None = Field(default=None, sa_type=BigInteger)
    recorded_by_name: str = Field(default="", sa_column_kwargs=sql_default("''"))
    created_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)
    undone_by: int | None = Field(default=None, foreign_key="event.id")
    tiles: str = Field(default="", sa_column_kwargs=sql_default("''"))  # a hand's, as scored


class Event(EventRow, table=True):
    __table_args__ = (
        UniqueConstraint("chat_id", "seq"),
        Index("ix_event_table_season_seq", "table_id", "season_id", "seq"),
        Index("ux_event_table_season_hand", "table_id", "season_id", "hand_no", unique=True),
        Index("ix_event_season_kind_seq", "season_id", "kind", "seq"),
    )


class TransferRow(SQLModel):
    """A payment of a record: `payer` → `payee`. For 510K scores and free rounds (not paid
    between players) one side is the table (None): a positive score is paid by the table, a
    negative one to it."""

    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="event.id", index=True)
    season_id: int = Field(foreign_key="season.id", index=True)
    unit: str  # scoring.games.Unit
    payer_id: int | None = Field(default=None, foreign_key="player.id")
    payee_id: int | None = Field(default=None, foreign_key="player.id")
    amount: Fraction | int = Field(sa_type=FractionType)
    reason: str
    detail: dict[str, Any] = Field(
        default_factory=dict, sa_type=JSON, sa_column_kwargs=sql_default("'{}'")
    )


class Transfer(TransferRow, table=True):
    pass


class BalanceRow(SQLModel):
    """Running balance per season, player and unit: the sum of the season's live transfers,
    kept in the same transaction as every change so standings never scan history; `par`: the
    sum of the averages of the live records the player sat at (not zero-sum 510K hands)."""

    season_id: int = Field(foreign_key="season.id", primary_key=True)
    player_id: int = Field(foreign_key="player.id", primary_key=True)
    unit: str = Field(primary_key=True)
    amount: Fraction = Field(
        default=Fraction(0), sa_type=FractionType, sa_column_kwargs=sql_default("'0'")
    )
    par: Fraction = Field(
        default=Fraction(0), sa_type=FractionType, sa_column_kwargs=sql_default("'0'")
    )


class Balance(BalanceRow, table=True):
    pass


class ProcessedUpdate(SQLModel, table=True):
    """A Telegram update already applied (recorded in the same transaction as its change)."""

    __tablename__ = "processed_update"

    update_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    chat_id: int = Field(sa_type=BigInteger)
    event_id: int | None = None
    processed_at: datetime = Field(default_factory=utcnow, index=True, sa_column_kwargs=NOW)


class ChatMove(SQLModel, table=True):
    """A group that became a supergroup: writes for the old id go to the new one."""

    __tablename__ = "chat_move"

    old_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    new_id: int = Field(sa_type=BigInteger)
    moved_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)


class AppLink(SQLModel, table=True):
    """The Mini App's key to a chat (and forum topic): a random token, the `startapp` of the
    chat's app link. Neither guessable nor derived from the chat id."""

    __tablename__ = "app_link"
    __table_args__ = (UniqueConstraint("chat_id", "thread_id"),)

    token: str = Field(primary_key=True)
    chat_id: int = Field(sa_type=BigInteger, foreign_key="chat.id")  # indexed by the unique key
    thread_id: int = Field(sa_type=BigInteger, sa_column_kwargs=sql_default("0"))  # 0: no topic
    created_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)


class Reminder(SQLModel, table=True):
    """A long hint given to a player once in a season (revision 0021: `menqing`, the 门清
    reminder). No foreign keys: a row left behind by a merged player or a moved chat only
    means a hint that is given once more."""

    __tablename__ = "reminder"

    season_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    player_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    hint: str = Field(primary_key=True)


class NearRepeatRow(SQLModel):
    """A hand typed again with a difference, within two minutes of the record it resembles
    (revision 0023): its content, kept for the question's answer (`service.repeats`). No
    foreign keys: a stale row only means a stale question."""

    id: int = Field(primary_key=True)
    chat_id: int = Field(sa_type=BigInteger)
    event_id: int  # the record it resembles
    same: dict[str, Any] = Field(default_factory=dict, sa_type=JSON)
    text: str = Field(default="", sa_column_kwargs=sql_default("''"))
    created_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)


class NearRepeat(NearRepeatRow, table=True):
    __tablename__ = "near_repeat"


class PlanRow(SQLModel):
    """The next game arranged with /yue (revision 0024): when, which game, how many make the
    table, the poll that asks who comes; `reminded_at`: the reminder sent (claimed once by one
    worker), `full_at`: "the table is full" said, `cancelled_at`: /yue cancel."""

    id: int = Field(primary_key=True)
    chat_id: int = Field(sa_type=BigInteger, foreign_key="chat.id", index=True)
    thread_id: int = Field(default=0, sa_type=BigInteger, sa_column_kwargs=sql_default("0"))
    at: datetime
    game: str = Field(default="", sa_column_kwargs=sql_default("''"))
    seats: int = Field(default=4, sa_column_kwargs=sql_default("4"))
    poll_id: str | None = Field(default=None, unique=True)
    message_id: int | None = Field(default=None, sa_type=BigInteger)
    created_by: int | None = Field(default=None, sa_type=BigInteger)
    created_by_name: str = Field(default="", sa_column_kwargs=sql_default("''"))
    created_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)
    cancelled_at: datetime | None = None
    reminded_at: datetime | None = Field(default=None, index=True)
    full_at: datetime | None = None


class Plan(PlanRow, table=True):
    pass


class PlanAnswerRow(SQLModel):
    """A member's answer to a /yue poll (the last one counts: re-voting is allowed)."""

    plan_id: int = Field(foreign_key="plan.id", primary_key=True)
    user_id: int = Field(sa_column=Column(BigInteger, primary_key=True, autoincrement=False))
    name: str = Field(default="", sa_column_kwargs=sql_default("''"))
    username: str | None = None
    coming: bool = Field(default=False, sa_column_kwargs=OFF)
    answered_at: datetime = Field(default_factory=utcnow, sa_column_kwargs=NOW)


class PlanAnswer(PlanAnswerRow, table=True):
    __tablename__ = "plan_answer"


def core_table(model: type[SQLModel]) -> Table:
    """The Core table of a table model: what the gateway's statements are built on."""
    found = model.__table__  # type: ignore[attr-defined]
    assert isinstance(found, Table)
    return found


chat = core_table(Chat)
season = core_table(Season)
player = core_table(Player)
game_table = core_table(GameTable)
event = core_table(Event)
transfer = core_table(Transfer)
balance = core_table(Balance)
processed_update = core_table(ProcessedUpdate)
chat_move = core_table(ChatMove)
app_link = core_table(AppLink)
reminder = core_table(Reminder)
near_repeat = core_table(NearRepeat)
plan = core_table(Plan)
plan_answer = core_table(PlanAnswer)
