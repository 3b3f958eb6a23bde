"""A tiny driver for the service: people at one chat send commands as text."""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime
from fractions import Fraction
from typing import IO, Any

from sqlalchemy.engine import Engine

from bot.commands.parsing import parse
from service.context import Actor, Ctx
from service.core import Service
from service.replies import ExportRow, RepeatAsk, Reply, StandingsView
from service.requests import Again, Answered, Request

_update_ids = itertools.count(1)


def utc(value: Any) -> datetime:
    """A timestamp column read back with plain SQL, aware and in UTC (SQLite keeps UTC text
    without an offset)."""
    if isinstance(value, str):
        return datetime.fromisoformat(value).replace(tzinfo=UTC)
    assert isinstance(value, datetime)
    return value.astimezone(UTC)


class Chat:
    """People at one chat. They mean what they type: the two-minute rule's question (the same
    result as the last record, again) is answered [Record again] at once, unless `ask_repeats`
    (then the question is the reply)."""

    def __init__(
        self,
        engine: Engine,
        chat_id: int,
        admins: tuple[str, ...] = (),
        *,
        ask_repeats: bool = False,
    ) -> None:
        self.service = Service(engine)
        self.chat_id = chat_id
        self.admins = admins
        self.ask_repeats = ask_repeats

    def actor(self, name: str) -> Actor:
        return Actor(abs(hash(name)) % 10**9 + 1, name, name.lower())

    def say(self, name: str, text: str, *, update_id: int | None = None) -> Reply:
        return self.press(name, parse(text), text=text, update_id=update_id)

    def press(
        self, name: str, request: Request, *, text: str = "[button]", update_id: int | None = None
    ) -> Reply:
        ctx = Ctx(
            chat_id=self.chat_id,
            actor=self.actor(name),
            is_admin=name in self.admins,
            update_id=next(_update_ids) if update_id is None else update_id,
            text=text,
        )
        reply = self.service.execute(ctx, request)
        if isinstance(reply, RepeatAsk) and not self.ask_repeats:
            again: Request = Again(reply.view.event_id)
            if reply.near is not None:  # typed as meant: the new one recorded as well
                again = Answered(reply.near, replace=False)
            return self.press(name, again, text="[again]")
        return reply

    def balances(self, unit: str = "mahjong", season: int | None = None) -> dict[str, Fraction]:
        text = "/standings" if season is None else f"/standings {season}"
        view = self.say("viewer", text)
        assert isinstance(view, StandingsView)
        return {name: amount for u, rows in view.sections if u == unit for name, amount in rows}

    def seat(self, game: str, *names: str) -> None:
        self.say(names[0], f"/new {game} confirm")
        self.say(names[0], "/seats " + " ".join(names))


def trace(driver: Any, sink: IO[str]) -> None:
    """libpq's trace of a psycopg connection's messages into `sink`, comparable from run to
    run (no timestamps, no varying fields)."""
    from psycopg.pq import Trace

    driver.pgconn.trace(sink.fileno())
    driver.pgconn.set_trace_flags(Trace.SUPPRESS_TIMESTAMPS | Trace.REGRESS_MODE)


def live_totals(rows: Iterable[ExportRow]) -> dict[tuple[str, str], Fraction]:
    """(unit, name) → the sum of an export's live rows: what /standings shows."""
    out: dict[tuple[str, str], Fraction] = defaultdict(Fraction)
    for _at, _hand, _game, unit, payer, payee, amount, _reason, _by, undone, *_rest in rows:
        if undone:
            continue
        if payer is not None:
            out[(unit, payer)] -= Fraction(amount)
        if payee is not None:
            out[(unit, payee)] += Fraction(amount)
    return dict(out)
