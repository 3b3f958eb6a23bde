"""`/s` with buttons: a free round entered by tapping, no names typed.

Stateless like the /hu wizard: the whole state rides in the callback data, ``v1:f:<sel>:<a1>,
<a2>,…[:go]`` — the selected seat (1–10, or 0 for none) and each seat's score so far (whole
points, empty for 0). Tap a player, then amounts (they add up; "= rest" gives the selected
player the balance, "0" clears it); Record appears once the scores add up to 0. A button whose
data would pass Telegram's 64 bytes is left out. Record is claimed once per message (`claim`):
a double tap, or a second player's tap, answers "recorded already".
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from html import escape

from telegram import Message, Update
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from bot.chat.replying import answer
from bot.chat.service_call import renderer_for, run
from bot.commands import labels
from bot.commands.callback_data import VERSION, cancel_data, press_key
from bot.delivery.messages import send
from bot.i18n import N_
from bot.presentation.markup import markup
from bot.presentation.numbers import fmt
from bot.presentation.out import SUCCESS, Button, Out
from bot.presentation.render import Renderer
from scoring.games import Game, Unit
from service.errors import ServiceError
from service.replies import Reply, TableView
from service.requests import PlayerRef, RefKind, Score, ScoreEntry, ShowPlayers

STEPS = (-50, -10, -5, -1, 1, 5, 10, 50)
MAX_SCORE = 99_999  # per player, by buttons (type /s for more)
MAX_DATA = 64
STATE = re.compile(r"^(?:10|[0-9]):(?:-?[0-9]{1,5})?(?:,(?:-?[0-9]{1,5})?){1,9}(?::go)?$")


@dataclass(frozen=True)
class Round:
    selected: int  # 1-based seat; 0: none yet
    scores: tuple[int, ...]  # per seat
    go: bool = False

    def encode(self) -> str:
        scores = ",".join(str(s) if s else "" for s in self.scores)
        return f"{VERSION}:f:{self.selected}:{scores}" + (":go" if self.go else "")

    @property
    def total(self) -> int:
        return sum(self.scores)

    def with_score(self, seat: int, score: int) -> Round:
        scores = list(self.scores)
        scores[seat - 1] = score
        return replace(self, scores=tuple(scores))

    def request(self) -> Score:
        """The round as the service takes it: every non-zero score by seat."""
        return Score(
            tuple(
                ScoreEntry(PlayerRef(RefKind.SEAT, str(i + 1)), Fraction(s))
                for i, s in enumerate(self.scores)
                if s
            )
        )

    def command(self, seats: Sequence[str]) -> str:
        """The round as one would type it."""
        return "/s " + " ".join(
            f"{name}{s:+d}" for name, s in zip(seats, self.scores, strict=True) if s
        )


#: What a round's Record is pressed as, whatever its scores (`callback_data.press_key` of it and
#: the message): a message's round is recorded once, whoever taps Record and however often.
RECORD = f"{VERSION}:f:record"


def start(players: int) -> Round:
    return Round(0, (0,) * players)


def decode(arg: str, players: int) -> Round | None:
    """The state of callback data, or None when malformed or not for `players` seats."""
    if not STATE.match(arg):
        return None
    selected, scores, *go = arg.split(":")
    values = tuple(int(s) if s else 0 for s in scores.split(","))
    if len(values) != players or int(selected) > players:
        return None
    return Round(int(selected), values, bool(go))


def screen(state: Round, seats: Sequence[str], title: str, r: Renderer) -> Out:
    """The current round and its buttons."""
    lines = [
        "🎲 " + r._(N_("{game}: tap a player, then amounts."), game=escape(title)),
        " · ".join(
            f"{escape(n)} {fmt(s, signed=True)}" for n, s in zip(seats, state.scores, strict=True)
        ),
    ]
    if state.total:
        lines.append(r._(N_("Sum {sum}: the scores must add up to 0."), sum=fmt(state.total)))
    players = [
        Button(
            ("▶ " if i + 1 == state.selected else "") + f"{n} {fmt(s, signed=True)}",
            replace(state, selected=i + 1).encode(),
        )
        for i, (n, s) in enumerate(zip(seats, state.scores, strict=True))
    ]
    rows: list[tuple[Button, ...]] = list(_rows(players, 2))
    if state.selected:
        have = state.scores[state.selected - 1]
        steps = [
            Button(f"{step:+d}", state.with_score(state.selected, have + step).encode())
            for step in STEPS
            if abs(have + step) <= MAX_SCORE
        ]
        rows += _rows(_fit(steps), 4)
        extra = [Button("0", state.with_score(state.selected, 0).encode())]
        if abs(have - state.total) <= MAX_SCORE:
            rest = state.with_score(state.selected, have - state.total)
            extra.insert(0, Button(r._(N_("= rest")), rest.encode()))
        rows.append(tuple(_fit(extra)))
    last = [Button(r._("Cancel"), cancel_data())]
    if state.total == 0 and any(state.scores):
        last.insert(0, Button(r._(N_("Record")), replace(state, go=True).encode(), style=SUCCESS))
    rows.append(tuple(last))
    return Out("\n".join(lines), tuple(row for row in rows if row))


def _fit(buttons: Sequence[Button]) -> list[Button]:
    return [b for b in buttons if len(b.data.encode()) <= MAX_DATA]


def _rows(buttons: Sequence[Button], width: int) -> list[tuple[Button, ...]]:
    return [tuple(buttons[i : i + width]) for i in range(0, len(buttons), width)]


# --- the handlers: bare /s, and each press of its buttons ---


async def free_seats(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer
) -> TableView | None:
    """The free table here with at least two seated, or None after telling why not."""
    try:
        view: Reply | None = (await run(update, context, ShowPlayers(), "/players")).reply
    except ServiceError:  # no table here
        view = None
    if isinstance(view, TableView) and view.game == Game.FREE and None not in view.seats:
        return view
    if update.effective_message is not None:
        await send(
            update.effective_message,
            renderer.error(N_("The /s buttons need a free table with players here."), {}),
        )
    return None


def round_title(view: TableView, renderer: Renderer) -> str:
    return view.name or renderer._(labels.UNIT[Unit.FREE])


async def begin(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Bare /s: a round by buttons."""
    renderer = await renderer_for(context, update)
    view = await free_seats(update, context, renderer)
    if view is not None and update.effective_message is not None:
        names = [n for n in view.seats if n is not None]
        out = screen(start(len(names)), names, round_title(view, renderer), renderer)
        await send(update.effective_message, out)


async def step(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """The next screen of a round by buttons, or — on Record — the round recorded."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    view = await free_seats(update, context, renderer)
    names = [n for n in view.seats if n is not None] if view is not None else []
    state = decode(arg, len(names)) if view is not None else None
    if view is None or state is None:
        await answer(query, renderer.alert(N_("This button is no longer valid.")))
        return
    await answer(query)
    if not state.go:
        out = screen(state, names, round_title(view, renderer), renderer)
        with contextlib.suppress(BadRequest):  # a double tap: the same screen again
            await query.edit_message_text(out.text, reply_markup=markup(out))
        return
    command = state.command(names)
    once = press_key(query.message.chat.id, query.message.message_id, RECORD)
    try:
        reply = (await run(update, context, state.request(), command, once_key=once)).reply
    except ServiceError as err:
        await send(query.message, renderer.error(err.msgid, err.params, err.usage))
        return
    code = f"<code>{escape(command)}</code>"
    typed = renderer._("Typed, this is: {command}", command=code)
    with contextlib.suppress(BadRequest):  # a second tap: edited already
        await query.edit_message_text(typed)
    await send(query.message, renderer.render(reply))
