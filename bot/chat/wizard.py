"""The /hu button wizard: winner → how → from → pattern → flags and 封胡 → confirm (with the
payments and nets the hand would record: the service's dry run); or, instead of the pattern,
"enter the tiles": it shows the command to complete with the winner's tiles.

Stateless: the whole state rides in the callback data (``v1:w:<winner>.<how>.<from>.<pattern>
.<flags>.<stage>``; the flags number carries the sealed player's seat times 8), so it survives
restarts and works across webhook workers. It ends in the same command a user could type, which
it shows, so people learn the short form.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from html import escape

from telegram import Message, Update
from telegram.error import BadRequest
from telegram.ext import ContextTypes

from bot.chat.replying import answer
from bot.chat.service_call import dry_run, renderer_for, run
from bot.commands.callback_data import VERSION, cancel_data, press_key
from bot.commands.labels import FLAG, PATTERN, WIN
from bot.commands.parsing import ParseError, parse
from bot.delivery.messages import send
from bot.i18n import N_
from bot.presentation.markup import markup
from bot.presentation.out import SUCCESS, Button, Out
from bot.presentation.render import Renderer
from scoring import WinType
from scoring.games import Game
from service.errors import ServiceError
from service.replies import Info, Recorded, Reply, TableView
from service.requests import ShowPlayers

#: The ways to win, by the word the typed command uses, in the order of the buttons.
HOWS = {
    "zimo": WinType.ZIMO,
    "pao": WinType.DIANPAO,
    "gangkai": WinType.GANGKAI,
    "gangpao": WinType.GANGPAO,
    "qianggang": WinType.QIANGGANG,
    "quanqiupao": WinType.QUANQIUPAO,
    "haidi": WinType.HAIDILAO,
    "haidipao": WinType.HAIDIPAO,
    "tianhu": WinType.TIANHU,
    "dihu": WinType.DIHU,
    "renhu": WinType.RENHU,
}
PATTERNS = ("jihu", "pph", "qidui", "qidui1", "qidui2", "qidui3")
TILES = "tiles"  # the pattern screen's last choice: the tiles decide the pattern and flags
PATTERN_LABEL = {"pph": "pengpenghu", "qidui": "qidui0"}
FLAGS = ("qys", "mq", "qqr")
FLAG_LABEL = {"qys": "qingyise", "mq": "menqing", "qqr": "quanqiuren"}
STATE = re.compile(
    r"^(?:[1-4](?:\.[a-z]+(?:\.[1-4-](?:\.[a-z0-9]+(?:\.[0-9]{1,2}(?:\.(?:ok|go))?)?)?)?)?)?$"
)


@dataclass(frozen=True)
class Table:
    """What the wizard asks about: the seated names and the kongs of the hand (seat 0..3,
    kind), so that it offers nothing they contradict."""

    names: tuple[str, ...]
    kongs: tuple[tuple[int, str], ...] = ()

    def kongs_of(self, winner: int) -> frozenset[str]:
        """The kinds of kong the winner (seat 1..4) made in this hand."""
        return frozenset(kind for seat, kind in self.kongs if seat == winner - 1)


@dataclass(frozen=True)
class Wizard:
    winner: int | None = None
    how: str | None = None
    source: str | None = None  # a seat digit, or "-" when the way to win has no discarder
    pattern: str | None = None
    flags: int | None = None
    stage: str = ""  # "" while choosing, "ok" to confirm, "go" to record
    sealed: int = 0  # the seat the winner sealed (封胡), 0 for none

    def encode(self) -> str:
        flags = None if self.flags is None else self.flags | self.sealed << 3
        parts = [self.winner, self.how, self.source, self.pattern, flags]
        fields = [str(p) for p in parts if p is not None]
        if self.stage:
            fields.append(self.stage)
        return f"{VERSION}:w:" + ".".join(fields)

    def command(self) -> str:
        """The typed form of the finished wizard."""
        words = ["/hu", str(self.winner), self.how or ""]
        if self.source not in (None, "-"):
            words.append(str(self.source))
        if self.pattern and self.pattern not in ("jihu", TILES):
            words.append(self.pattern)
        words += [f for i, f in enumerate(FLAGS) if (self.flags or 0) >> i & 1]
        if self.sealed:
            words += ["feng", str(self.sealed)]
        return " ".join(words)


def decode(arg: str) -> Wizard | None:
    """The wizard state of callback data, or None when it is malformed or inconsistent."""
    if not STATE.match(arg):
        return None
    fields = arg.split(".") if arg else []
    stage = fields.pop() if fields and fields[-1] in ("ok", "go") else ""
    values: list[str | None] = [*fields, *[None] * (5 - len(fields))]
    winner, how, source, pattern, flags = values
    if how is not None and how not in HOWS:
        return None
    if source is not None and (source == "-") == (how is not None and HOWS[how].needs_discarder):
        return None
    if source not in (None, "-") and source == winner:
        return None
    tiles = pattern == TILES and flags is None and not stage  # the last screen: no flags
    if pattern is not None and pattern not in PATTERNS and not tiles:
        return None
    bits, sealed = (int(flags) & 7, int(flags) >> 3) if flags is not None else (None, 0)
    if bits is not None and how is not None and pattern is not None:
        shown = offered(how, pattern, bits, sealed=sealed)
        if any(bits >> i & 1 and f not in shown for i, f in enumerate(FLAGS)):
            return None  # a contradiction the screens never offer
        if sealed and (sealed > 4 or str(sealed) == winner or not sealable(how, pattern, bits)):
            return None
    return Wizard(
        winner=int(winner) if winner else None,
        how=how,
        source=source,
        pattern=pattern,
        flags=bits,
        stage=stage,
        sealed=sealed,
    )


def screen(w: Wizard, table: Table, r: Renderer) -> Out:
    """The wizard's current question and its buttons."""
    seats = table.names
    cancel = Button(r._("Cancel"), cancel_data())
    if w.winner is None:
        rows = [
            Button(f"{i + 1}. {n}", replace(w, winner=i + 1).encode()) for i, n in enumerate(seats)
        ]
        return Out(r._(N_("🀄 Who won?")), (*_rows(rows), (cancel,)))
    who = seats[w.winner - 1]
    kongs = table.kongs_of(w.winner)
    if w.how is None:
        rows = [
            Button(
                r._(WIN[how]),
                replace(w, how=word, source=None if how.needs_discarder else "-").encode(),
            )
            for word, how in HOWS.items()
            if not (kongs and how.always_concealed)  # won before any kong
        ]
        return Out(
            r._(N_("🀄 How did {name} win?"), name=escape(who)), (*_rows(rows, 2), (cancel,))
        )
    if w.source is None:
        rows = [
            Button(f"{i + 1}. {n}", replace(w, source=str(i + 1)).encode())
            for i, n in enumerate(seats)
            if i + 1 != w.winner
        ]
        return Out(r._(N_("🀄 Who paid?")), (*_rows(rows), (cancel,)))
    if w.pattern is None:
        no_pairs = bool(kongs) or w.how == "gangkai"  # seven pairs hold no kong
        rows = [
            Button(r._(PATTERN[PATTERN_LABEL.get(p, p)]), replace(w, pattern=p, flags=0).encode())
            for p in PATTERNS
            if not (no_pairs and p.startswith("qidui"))
        ]
        tiles = Button(r._(N_("🀄 Enter the tiles")), replace(w, pattern=TILES).encode())
        return Out(r._(N_("🀄 Which pattern?")), (*_rows(rows, 2), (tiles,), (cancel,)))
    if w.pattern == TILES:
        return Out(tiles_screen(w, who, bool(kongs), r), ((cancel,),))
    flags = w.flags or 0
    if w.stage == "":
        shown = offered(w.how, w.pattern, flags, kongs, w.sealed)
        toggles = [
            Button(
                ("✅ " if flags >> i & 1 else "") + r._(FLAG[FLAG_LABEL[f]]),
                replace(w, flags=flags ^ (1 << i)).encode(),
            )
            for i, f in enumerate(FLAGS)
            if f in shown
        ]
        seals = [
            Button(
                ("✅ " if w.sealed == i + 1 else "") + r._(SEALED, name=escape(name)),
                replace(w, sealed=0 if w.sealed == i + 1 else i + 1).encode(),
            )
            for i, name in enumerate(seats)
            if i + 1 != w.winner and sealable(w.how, w.pattern, flags)
        ]
        done = Button(r._(N_("Done")), replace(w, stage="ok").encode())
        text = r._(N_("🀄 Any flags? Tap to toggle, then Done."))
        if "mq" in shown:
            text += "\n" + r._(ASK_MENQING)
        if seals:
            text += "\n" + r._(ASK_SEALED, name=escape(who))
        return Out(text, (*_rows(toggles), *_rows(seals, 3), (done, cancel)))
    text = r._(N_("🀄 Record this hand?")) + f"\n<code>{w.command()}</code>"
    record = Button(r._(N_("Record")), replace(w, stage="go").encode(), style=SUCCESS)
    return Out(text, ((record, cancel),))


SEALED = N_("封胡 {name}")
ASK_SEALED = N_(
    "封胡? Tap the player {name} punged or konged three melds off, if there is one: "
    "that player pays on top (see /rules)."
)


async def with_preview(
    update: Update, context: ContextTypes.DEFAULT_TYPE, w: Wizard, out: Out, r: Renderer
) -> Out:
    """The confirmation with what the chat will reply (who pays whom, why, each net), from the
    service's dry run; a hand the rules refuse shows why, and only Cancel."""
    command = w.command()
    try:
        reply = (await dry_run(update, context, parse(command), command)).reply
    except (ParseError, ServiceError) as err:
        code = out.text.split("\n", 1)[1]  # the command, without the question
        return Out(code + "\n" + r.error(err.msgid, err.params).text, (out.buttons[0][1:],))
    preview = r.render(reply).text
    return Out(out.text + "\n\n" + r._(N_("The chat will show:")) + "\n" + preview, out.buttons)


ENTER_TILES = N_(
    "🀄 Send {name}'s tiles with this command (tap it to copy, then add the tiles):\n"
    "{command}\n"
    "e.g. {example} — m 万, p 筒, s 条, z 字 (1–7: 东 南 西 北 中 发 白), [777p] an exposed "
    "pung or kong, (9999m) a concealed kong; 14 tiles with the winning one, one more per kong. "
    "The tiles decide the pattern and the flags."
)
KONGS_IN_TILES = N_("Write {name}'s kongs of this hand in the tiles too.")


def tiles_screen(w: Wizard, name: str, konged: bool, r: Renderer) -> str:
    """The command to complete with the winner's tiles, an example of it, and the notation."""
    command = w.command()
    example = f"<code>{escape(command)} [777p] 123m456m789s55s</code>"
    text = r._(
        ENTER_TILES, name=escape(name), command=f"<code>{escape(command)} </code>", example=example
    )
    return text + ("\n" + r._(KONGS_IN_TILES, name=escape(name)) if konged else "")


ASK_MENQING = N_(
    "门清? Tap it if the hand was concealed (nothing punged or konged off a discard): "
    "otherwise it is scored as not concealed."
)


def offered(
    how: str, pattern: str, flags: int, kongs: frozenset[str] = frozenset(), sealed: int = 0
) -> tuple[str, ...]:
    """The flags that do not contradict the hand so far: 七对, 天胡, 地胡 and 人胡 are concealed
    anyway and never 全求人; 门清 and 全求人 exclude each other; the winner's exposed or added
    kong (`kongs`: his kinds) rules out 门清, his concealed one 全求人, a sealed player 门清."""
    if pattern.startswith("qidui") or HOWS[how].always_concealed:
        return ("qys",)
    mq = not kongs - {"an"} and not flags >> FLAGS.index("qqr") & 1 and not sealed
    qqr = "an" not in kongs and not flags >> FLAGS.index("mq") & 1
    return ("qys", *(("mq",) if mq else ()), *(("qqr",) if qqr else ()))


def sealable(how: str, pattern: str, flags: int) -> bool:
    """Whether the hand can have a sealed player: three melds off him, so not 七对, not 门清,
    not 天胡, 地胡 or 人胡."""
    concealed = pattern.startswith("qidui") or HOWS[how].always_concealed
    return not concealed and not flags >> FLAGS.index("mq") & 1


def _rows(buttons: Sequence[Button], width: int = 2) -> tuple[tuple[Button, ...], ...]:
    return tuple(tuple(buttons[i : i + width]) for i in range(0, len(buttons), width))


# --- the handlers: bare /hu, and each press of the wizard's buttons ---


async def seats_of(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer
) -> Table | None:
    """The seated names of a full mahjong table here and the hand's kongs, or None after telling
    why not."""
    try:
        view: Reply | None = (await run(update, context, ShowPlayers(), "/players")).reply
    except ServiceError:  # no table here
        view = None
    message = update.effective_message
    if isinstance(view, TableView) and view.game == Game.MAHJONG and None not in view.seats:
        return Table(tuple(name for name in view.seats if name is not None), view.kongs)
    if message is not None:
        await send(
            message, renderer.error(N_("The /hu buttons need a full mahjong table here."), {})
        )
    return None


async def start(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """Bare /hu: ask step by step with buttons."""
    renderer = await renderer_for(context, update)
    seats = await seats_of(update, context, renderer)
    if seats is not None and update.effective_message is not None:
        await send(update.effective_message, screen(Wizard(), seats, renderer))


async def step(
    update: Update, context: ContextTypes.DEFAULT_TYPE, renderer: Renderer, arg: str
) -> None:
    """Next wizard question, or — at the end — record the hand exactly as the typed command."""
    query = update.callback_query
    assert query is not None and isinstance(query.message, Message)
    state = decode(arg)
    seats = await seats_of(update, context, renderer) if state else None
    if state is None or seats is None or (state.winner or 1) > len(seats.names):
        await answer(query, renderer.alert(N_("This button is no longer valid.")))
        return
    if state.stage != "go":
        await answer(query)
        out = screen(state, seats, renderer)
        if state.stage == "ok" and state.pattern != TILES:
            out = await with_preview(update, context, state, out, renderer)
        with contextlib.suppress(BadRequest):  # a double tap: the same screen again
            await query.edit_message_text(out.text, reply_markup=markup(out))
        return
    command = state.command()
    once = press_key(query.message.chat.id, query.message.message_id, query.data or "")
    try:
        reply = (await run(update, context, parse(command), command, once_key=once)).reply
    except (ParseError, ServiceError) as err:
        await answer(query)
        await send(query.message, renderer.error(err.msgid, err.params, err.usage))
        return
    if (isinstance(reply, Recorded) and reply.repeated) or isinstance(reply, Info):
        await answer(query, renderer.alert(N_("Already recorded.")))  # a double tap
        return
    await answer(query)
    code = f"<code>{escape(command)}</code>"
    typed = renderer._("Typed, this is: {command}", command=code)
    await query.edit_message_text(typed)
    await send(query.message, renderer.render(reply))
