"""The naive peer of ``lone_vs_naive_orm``: the score bot a user writes first with the same
libraries, python-telegram-bot and SQLModel's ORM as its tutorial shows them. Each command is
one update: a ``Session`` opened for it, the command added as a row, the sender's balance got
by its primary key (made at the first), moved, committed and refreshed, and a reply with it.

Nothing of jifen is used: its own models (in a registry of their own, so jifen's metadata and
migrations never see them) and its own engine made by ``create_engine`` on the same URL as the
product's database (SQLite: its own file beside it). The handler runs the session on the event
loop, as the tutorial's synchronous code would be dropped into a PTB handler.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.orm import registry
from sqlmodel import Field, Session, SQLModel
from telegram import Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

NAIVE = registry()  # not SQLModel.metadata: jifen's schema stays its own


class NaiveModel(SQLModel, registry=NAIVE):
    pass


class NaiveRecord(NaiveModel, table=True):
    __tablename__ = "naive_record"

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(index=True)
    user_id: int
    text: str
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))


class NaiveBalance(NaiveModel, table=True):
    __tablename__ = "naive_balance"

    chat_id: int = Field(primary_key=True)
    user_id: int = Field(primary_key=True)
    points: int = 0


def naive_engine(url: str) -> Engine:
    """The peer's engine, as the tutorial makes it, its tables created."""
    args: dict[str, Any] = {"check_same_thread": False} if url.startswith("sqlite") else {}
    engine = create_engine(url, connect_args=args)
    NaiveModel.metadata.create_all(engine)
    return engine


async def record(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """One row and one balance, in a session of its own."""
    message, user = update.effective_message, update.effective_user
    if message is None or user is None or not message.text:
        return
    engine: Engine = context.bot_data["engine"]
    with Session(engine) as session:
        session.add(NaiveRecord(chat_id=message.chat_id, user_id=user.id, text=message.text))
        balance = session.get(NaiveBalance, (message.chat_id, user.id))
        if balance is None:
            balance = NaiveBalance(chat_id=message.chat_id, user_id=user.id)
        balance.points += 1
        session.add(balance)
        session.commit()
        session.refresh(balance)
        await message.reply_text(f"Recorded. {user.first_name}: {balance.points}", do_quote=False)


def add_handlers(app: Application[Any, Any, Any, Any, Any, Any], engine: Engine) -> None:
    app.bot_data["engine"] = engine
    app.add_handler(MessageHandler(filters.COMMAND & filters.UpdateType.MESSAGE, record))
