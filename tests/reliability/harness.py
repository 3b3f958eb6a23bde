"""The real PTB Application in-process over the fake Bot API, instrumented for reliability tests.

``BotUnderTest`` records every call of the error handlers (an extra error handler: PTB calls them
all), snapshots the whole database (every row of every table) to prove a refused command changed
nothing, and checks the ledger's invariants. It runs on its own event loop so that hypothesis
tests can drive it from plain (sync) test functions.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from sqlalchemy import text
from sqlalchemy.engine import Engine
from telegram import Update
from telegram.ext import ContextTypes

from bot.app import build_application
from bot.settings import Settings
from tests.emulator.api import CallbackAnswer, Chat, FakeBotApi, OutboxEntry, User
from tests.emulator.request import EmulatorRequest

WARNING = "⚠️"
TEXT_LIMIT = 4096
BOT_USERNAME = "jifen_bot"
TABLES = (
    "chat",
    "season",
    "player",
    "game_table",
    "event",
    "transfer",
    "balance",
    "processed_update",
)
UPDATE_ID_BASE = 7_000_000_000_000
_ids = itertools.count(1)


def fresh_id() -> int:
    """A number no other chat or user of this test process uses."""
    return next(_ids)


@dataclass
class Outcome:
    """What the bot did for one update."""

    update: dict[str, Any]
    sent: list[OutboxEntry]
    answers: list[CallbackAnswer]
    errors: list[BaseException]

    @property
    def texts(self) -> list[str]:
        return [e.plain_text for e in self.sent if e.action in ("sent", "edited")]

    @property
    def warned(self) -> bool:
        """A refusal: an error message, or an alert answering a button."""
        return any(t.startswith(WARNING) for t in self.texts) or any(
            a.show_alert for a in self.answers
        )


@dataclass
class BotUnderTest:
    api: FakeBotApi
    app: Any
    engine: Engine
    loop: asyncio.AbstractEventLoop
    errors: list[BaseException] = field(default_factory=list)

    # ------------------------------------------------------------------ driving

    def process(self, update: dict[str, Any]) -> Outcome:
        """Feed one update (as Telegram sends it) and collect what the bot did."""
        seq, errors = self.api.last_seq, len(self.errors)
        self.api.take_updates()
        self.loop.run_until_complete(self.app.process_update(Update.de_json(update, self.app.bot)))
        return Outcome(
            update,
            [e for e in self.api.outbox_since(seq)],
            self.api.answers_since(seq),
            self.errors[errors:],
        )

    def say(self, user: User, message: str, chat: Chat, thread: int | None = None) -> Outcome:
        return self.process(self.api.send_text(chat, user, message, thread))

    def anonymous(self, message: str, chat: Chat, thread: int | None = None) -> Outcome:
        return self.process(self.api.send_as_anonymous_admin(chat, message, thread))

    def press(self, user: User, chat: Chat, message_id: int, data: str) -> Outcome:
        return self.process(self.api.press_button(chat, user, message_id, data))

    # ------------------------------------------------------------------ the database

    def snapshot(self) -> dict[str, list[tuple[Any, ...]]]:
        """Every row of every table, in a stable order."""
        with self.engine.connect() as conn:
            return {
                table: sorted(
                    (tuple(row) for row in conn.execute(text(f"SELECT * FROM {table}"))),
                    key=repr,
                )
                for table in TABLES
            }

    def counts(self) -> dict[str, int]:
        with self.engine.connect() as conn:
            return {
                table: int(conn.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())
                for table in TABLES
            }

    def check_invariants(self) -> None:
        """The balance cache equals the live transfers; mahjong is zero-sum; undo links hold."""
        with self.engine.connect() as conn:
            live: dict[tuple[int, int, str], Fraction] = {}
            rows = conn.execute(
                text(
                    "SELECT t.season_id, t.payer_id, t.payee_id, t.unit, t.amount FROM transfer t "
                    "JOIN event e ON e.id = t.event_id WHERE e.undone_by IS NULL"
                )
            )
            for season, payer, payee, unit, amount in rows:
                for pid, sign in ((payer, -1), (payee, 1)):
                    if pid is not None:
                        key = (int(season), int(pid), str(unit))
                        live[key] = live.get(key, Fraction(0)) + sign * Fraction(amount)
            cached = {
                (int(s), int(p), str(u)): Fraction(a)
                for s, p, u, a in conn.execute(
                    text("SELECT season_id, player_id, unit, amount FROM balance")
                )
            }
            for key in live.keys() | cached.keys():
                assert live.get(key, 0) == cached.get(key, 0), f"balance cache drifted at {key}"
            sums: dict[int, Fraction] = {}
            for (season, _, unit), amount in cached.items():
                if unit == "mahjong":
                    sums[season] = sums.get(season, Fraction(0)) + amount
            assert all(v == 0 for v in sums.values()), f"mahjong is not zero-sum: {sums}"
            bad_links = conn.execute(
                text(
                    "SELECT count(*) FROM event e LEFT JOIN event u ON u.id = e.undone_by "
                    "WHERE e.undone_by IS NOT NULL"
                    " AND (u.id IS NULL OR u.kind NOT IN ('undo', 'edit'))"
                )
            ).scalar_one()
            # an undo reverts its target; a correction (/edit) replaces a version of a record
            assert bad_links == 0, "an event is marked undone by something that is not an undo"
            self._check_pars(conn)

    @staticmethod
    def _check_pars(conn: Any) -> None:
        """Each balance's par is the sum of the averages of the live records its player sat
        at: a record's scores with the table shared among the seats in its data."""
        totals: dict[int, tuple[int, str, Fraction, list[int]]] = {}
        owed: dict[tuple[int, int, str], Fraction] = {}  # a fee's shares owed to the house
        rows = conn.execute(
            text(
                "SELECT e.id, e.season_id, t.unit, e.data, g.seats, t.payer_id, t.amount, e.kind "
                "FROM transfer t JOIN event e ON e.id = t.event_id "
                "LEFT JOIN game_table g ON g.id = e.table_id "
                "WHERE e.undone_by IS NULL AND (t.payer_id IS NULL OR t.payee_id IS NULL)"
            )
        )
        for event_id, season, unit, data, seats, payer, amount, kind in rows:
            if kind == "fee":  # its par: each share owed to the house (`service.fees`)
                key = (int(season), int(payer), str(unit))
                owed[key] = owed.get(key, Fraction(0)) - Fraction(amount)
                continue
            data, seats = (json.loads(v) if isinstance(v, str) else v for v in (data, seats))
            value = Fraction(amount) * (-1 if payer is not None else 1)
            total = totals[event_id][2] if event_id in totals else Fraction(0)
            at = _par_weights(data, data.get("seats") or seats)
            totals[event_id] = (int(season), str(unit), total + value, at)
        want: dict[tuple[int, int, str], Fraction] = dict(owed)
        for season, unit, total, at in totals.values():
            for pid, weight in (at if total else {}).items():
                key = (season, int(pid), unit)
                want[key] = want.get(key, Fraction(0)) + total * weight
        kept = {
            (int(s), int(p), str(u)): Fraction(par)
            for s, p, u, par in conn.execute(
                text("SELECT season_id, player_id, unit, par FROM balance")
            )
        }
        for key in want.keys() | kept.keys():
            assert want.get(key, 0) == kept.get(key, 0), f"par drifted at {key}"


def _par_weights(data: dict[str, Any], seats: list[int]) -> dict[int, Fraction]:
    """How a record's total is shared into pars: evenly among its seats; a finished 510K
    marathon of four: half to each team, among its players by the hands each played for it."""
    info = data.get("marathon") or {}
    if not info.get("finished") or "team1" not in info:
        return {int(pid): Fraction(1, len(seats)) for pid in seats}
    weights: dict[int, Fraction] = {}
    for team in (info["team1"], info["team2"]):
        hands = sum(int(n) for n in team.values())
        for pid, n in team.items():
            weights[int(pid)] = weights.get(int(pid), Fraction(0)) + Fraction(int(n), 2 * hands)
    return weights


def make_bot(
    engine: Engine, *, flood: bool = False, config: Settings | None = None
) -> Iterator[BotUnderTest]:
    """A started bot over a fresh fake Bot API (generator: use as a fixture body).

    ``flood=False`` switches the flood guard off (if it is wired, as ``bot_data["flood"]``): the
    fuzz and matrix tests send many commands from few users in no time.
    """
    # Update ids are unique in a database (processed_update): each fake API gets its own range,
    # away from the small ids other test modules use on the shared PostgreSQL database.
    api = FakeBotApi(first_update_id=UPDATE_ID_BASE + fresh_id() * 10_000_000)
    loop = asyncio.new_event_loop()
    app = build_application(
        config
        or Settings.given(
            token="123:TEST", database_url=str(engine.url), rate_limit=False, flood=None
        ),
        engine=engine,
        request=EmulatorRequest(api),
        updates_request=EmulatorRequest(api),
    )
    bot = BotUnderTest(api, app, engine, loop)

    async def record(update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        assert context.error is not None
        bot.errors.append(context.error)

    app.add_error_handler(record)
    if not flood:
        app.bot_data.pop("flood", None)
    loop.run_until_complete(app.initialize())
    if app.post_init is not None:
        loop.run_until_complete(app.post_init(app))
    try:
        yield bot
    finally:
        loop.run_until_complete(app.shutdown())
        if app.post_shutdown is not None:
            loop.run_until_complete(app.post_shutdown(app))
        loop.close()


def describe(errors: list[BaseException]) -> str:
    return "; ".join(f"{type(e).__name__}: {e}" for e in errors)


def seated_table(
    bot: BotUnderTest, names: tuple[str, ...] = ("Ann", "Bob", "Cat", "Dan")
) -> tuple[Chat, list[User]]:
    """A new group of `names` (the first its creator) seated at a mahjong table."""
    chat = Chat(-fresh_id() - 3_000_000_000_000, "supergroup", title="bugs")
    bot.api.add_chat(chat)
    users = [User(30_000_000 + fresh_id(), n, language_code="en") for n in names]
    bot.api.set_member(chat.id, users[0], "creator")
    for user in users[1:]:
        bot.api.set_member(chat.id, user, "member")
    bot.say(users[0], "/new mahjong", chat)
    for user in users:
        bot.say(user, "/join", chat)
    return chat, users
