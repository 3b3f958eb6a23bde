"""`/app/api/…`: the Mini App's JSON, on the same service as the chat.

Every request carries Telegram's launch data (header `X-Telegram-Init-Data`) and the chat's
token (header `X-Jifen-Chat`, the link's `startapp`). Missing, forged or stale launch data is
401; an unknown token or a user who is not a member of the chat gets 404; both with an empty
body. A recording carries an idempotency key (a UUID): the service claims an update id derived
from it, so a double tap or a retried request records once.
"""

from __future__ import annotations

import asyncio
import hashlib
import html
import logging
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import tornado.web
from telegram.error import TelegramError

from bot.commands.edit import MAX_HAND_NO
from bot.commands.parsing import ParseError
from bot.delivery.messages import post
from bot.miniapp import auth, forms, guard, sitting, texts
from bot.miniapp.edit_form import form_of
from bot.miniapp.members import Members, Role
from bot.presentation.numbers import fmt
from bot.presentation.out import Out
from bot.presentation.render import Renderer
from bot.presentation.render_edits import version_lines
from bot.presentation.render_hands import hand_lines, progress_line
from bot.presentation.render_tiles import hands_of
from bot.ptb_types import AnyApplication
from service.app import Place as Spot
from service.context import Actor, Ctx
from service.core import Service
from service.errors import ServiceError
from service.hand_views import HandView
from service.language import shown
from service.names import member_name
from service.replies import (
    Card,
    ChartData,
    Edited,
    HistoryView,
    Info,
    Recorded,
    RepeatAsk,
    Reply,
    SeasonsView,
    StandingsView,
    TableView,
)
from service.requests import (
    Again,
    Answered,
    Edit,
    History,
    Request,
    ShowPlayers,
    Undo,
)

log = logging.getLogger(__name__)
INIT_HEADER = "X-Telegram-Init-Data"
CHAT_HEADER = "X-Jifen-Chat"
HISTORY_PAGE = 30
HISTORY_MAX = 500


@dataclass
class Env:
    """What the handlers share: the bot, its token (the launch data's key), the age launch
    data may have, the membership cache."""

    application: AnyApplication
    token: str
    max_age: float
    members: Members = field(default_factory=Members)
    clock: Callable[[], float] = time.time

    @property
    def service(self) -> Service:
        svc: Service = self.application.bot_data["service"]
        return svc


@dataclass(frozen=True)
class Place:
    """An authenticated request's user and chat."""

    launch: auth.Launch
    chat_id: int
    thread_id: int
    role: Role


def update_id_of(key: str, chat_id: int) -> int:
    """The update id a recording claims: negative (Telegram's are positive), from its key."""
    digest = hashlib.sha256(f"{chat_id}:{key}".encode()).digest()
    return -(int.from_bytes(digest[:8], "big") >> 1) - 1


class Api(tornado.web.RequestHandler):
    """Authenticates every request before its method runs; errors have an empty body."""

    env: Env
    place: Place
    counted = True  # against a budget of the member in the chat (the live poll has its own)
    records = False  # a recording: the member's command limit; else views' or previews' budget

    def initialize(self, env: Env) -> None:
        self.env = env

    def set_default_headers(self) -> None:
        self.set_header("Cache-Control", "no-store")

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        if status_code < 500:
            guard.logged(self, status_code)
        self.finish()

    async def prepare(self) -> None:
        init_data, token = self.credentials()
        launch = auth.verify(
            init_data, self.env.token, max_age=self.env.max_age, now=self.env.clock()
        )
        if launch is None:
            raise tornado.web.HTTPError(401)
        found = await asyncio.to_thread(self.locate, token) if token else None
        if found is None:
            raise tornado.web.HTTPError(404)
        chat_id, thread_id = found.chat_id, found.thread_id
        budgets = self.env.application.bot_data
        if self.counted and guard.over_budget(
            self,
            budgets,
            budget=guard.budget_of(self.request, self.records),
            user_id=launch.user_id,
            chat_id=chat_id,
            lang=launch.language,
        ):
            return
        bot, fresh = self.env.application.bot, guard.fresh(self.request)
        role = await self.env.members.role(bot, chat_id, launch.user_id, fresh=fresh)
        if role is Role.NONE:
            raise tornado.web.HTTPError(404)
        self.place = Place(launch, chat_id, thread_id, role)
        guard.check_query(self)

    def credentials(self) -> tuple[str, str]:
        """The request's launch data and chat token (its headers)."""
        headers = self.request.headers
        return headers.get(INIT_HEADER, ""), headers.get(CHAT_HEADER, "")

    def locate(self, token: str) -> Spot | None:
        """The chat and topic the token opens (in a worker thread: it reads)."""
        return self.env.service.app.place(token)

    @property
    def name(self) -> str:
        """The user's name as the chat shows a member's."""
        launch = self.place.launch
        return member_name(launch.first_name, launch.username, launch.user_id)

    def ctx(self, text: str = "", update_id: int | None = None) -> Ctx:
        launch = self.place.launch
        return Ctx(
            chat_id=self.place.chat_id,
            actor=Actor(launch.user_id, self.name, launch.username, launch.language),
            thread_id=self.place.thread_id,
            is_admin=self.place.role is Role.ADMIN,
            update_id=update_id,
            text=text,
        )

    async def read(self, request: Request) -> tuple[Reply | None, str | None]:
        """A view and its language; None for a view the chat has nothing for yet."""
        try:
            answer = await asyncio.to_thread(self.env.service.answer, self.ctx(), request)
        except ServiceError:
            return None, None
        return answer.reply, answer.lang

    async def language(self) -> str:
        """The language of this member's view of the chat, where no request ran."""
        place, code = self.place, self.place.launch.language
        return await asyncio.to_thread(self.env.service.language, place.chat_id, code)

    def renderer(self, lang: str | None) -> Renderer:
        """A renderer in `lang` (an answer's); None: no answer came, the member's language."""
        return Renderer(lang or shown(None, self.place.launch.language))

    def body(self) -> dict[str, Any]:
        data = guard.parse(self.request.body)
        if not isinstance(data, dict):
            raise tornado.web.HTTPError(400)
        return data

    def season_arg(self) -> int | None:
        value = self.get_query_argument("season", "")
        return int(value) if value.isdigit() and 0 < int(value) <= 1_000_000 else None


def _hand(r: Renderer, view: HandView) -> dict[str, Any]:
    return {
        "id": view.event_id,
        "no": view.hand_no,
        "at": view.at.isoformat(),
        "text": view.text,
        "undone": view.undone,
        "names": sorted({n for p in view.payments for n in (p.payer, p.payee) if n}),
        "html": hand_lines(r._, view),
        "tiles": [{"name": name, "reading": reading} for name, reading in hands_of(view)],
        "edited": view.edited,  # ✎: corrected in place (/edit)
        "version": view.version,  # what an edit saw (another member's since: told)
        "form": None if view.undone else form_of(view.content, view.seat_ids),  # ✎ Edit's
    }


def _standings(r: Renderer, v: StandingsView) -> dict[str, Any]:
    return {
        "season": v.season,
        "archived": v.archived,
        "sections": [
            {
                "unit": unit,
                "rows": [{"name": n, "amount": fmt(a, signed=True)} for n, a in rows],
            }
            for unit, rows in v.sections
        ],
        "progress": progress_line(r._, v.progress) if v.progress else None,
    }


def _units(v: StandingsView | None) -> tuple[str, ...]:
    """The standings' units: a free game's (`free:斗地主`) is named by the page's strings."""
    return tuple(unit for unit, _ in v.sections) if v is not None else ()


def _chart(data: ChartData) -> list[dict[str, Any]]:
    """/chart's series for the SVG: each point's count of hands played, and the balances
    (exact until here; a float is what the drawing needs)."""
    return [
        {
            "unit": s.unit,
            "hands": list(s.at),
            "lines": [
                {"name": line.name, "values": [float(v) for v in line.values]} for line in s.lines
            ],
        }
        for s in data.series
    ]


def _table(
    r: Renderer, v: TableView, kongs: tuple[HandView, ...], card: Card | None
) -> dict[str, Any]:
    return {
        "game": v.game,
        "marathon": v.marathon,
        "seats": list(v.seats),
        "dealer": v.dealer,
        "html": r.render(v).text,
        "kongs": [line for k in kongs for line in hand_lines(r._, k)],
        "sitting": sitting.totals(r._, card, v.seats),  # /summary's night, every table
    }


def _seasons(r: Renderer, v: SeasonsView) -> list[dict[str, Any]]:
    lines = r.render(v).text.split("\n")[1:]  # after the title, a line per season, a hint
    return [
        {"number": s.number, "archived": s.archived_at is not None, "html": line}
        for s, line in zip(v.seasons, lines, strict=False)
    ]


class ViewHandler(Api):
    """GET: everything the pages show, for the current season or `?season=N`: one read of the
    service (`Service.app.screen`: one snapshot)."""

    async def get(self) -> None:
        app, ctx = self.env.service.app, self.ctx()
        screen = await asyncio.to_thread(app.screen, ctx, self.season_arg(), HISTORY_PAGE)
        r = Renderer(screen.lang)
        table = screen.table
        self.write(
            {
                "lang": r.lang,
                "live": screen.mark,  # the page follows it (bot.miniapp.events, bot.miniapp.live)
                "strings": texts.strings(r.lang, _units(screen.standings)),
                "me": {
                    "name": self.name,
                    "admin": self.place.role is Role.ADMIN,
                },
                "standings": _standings(r, screen.standings) if screen.standings else None,
                "chart": _chart(screen.chart) if screen.chart else [],
                "settle": r.render(screen.settle).text if screen.settle else None,
                "history": [_hand(r, h) for h in reversed(screen.history.hands)]
                if screen.history
                else [],
                "seasons": _seasons(r, screen.seasons) if screen.seasons else [],
                "table": _table(r, table, screen.kongs, screen.card) if table else None,
            }
        )


class HistoryHandler(Api):
    """GET `?n=N[&season=S]`: the last N hands, newest first; `?versions=N`: hand #N's
    versions, where it was corrected (/edit), as `/history N` lists them."""

    async def get(self) -> None:
        number = self.get_query_argument("versions", "")
        if number.isdigit() and 0 < int(number) <= MAX_HAND_NO:
            request = History(n=1, season=self.season_arg(), versions=int(number))
            found, lang = await self.read(request)
            r = self.renderer(lang)
            shown = found if isinstance(found, HistoryView) else None
            lines = version_lines(r._, shown.versions, shown.tz) if shown is not None else []
            self.write({"versions": lines})
            return
        n = self.get_query_argument("n", str(HISTORY_PAGE))
        count = min(int(n), HISTORY_MAX) if n.isdigit() and int(n) > 0 else HISTORY_PAGE
        history, lang = await self.read(History(n=count, season=self.season_arg()))
        r = self.renderer(lang)
        hands = history.hands if isinstance(history, HistoryView) else ()
        self.write({"hands": [_hand(r, h) for h in reversed(hands)]})


class _Recording(Api):
    async def request_of(self, form: Any) -> tuple[str, Request]:
        """The form's command (players by name where that reads the same) and request."""
        table, _ = await self.read(ShowPlayers())
        seats = table.seats if isinstance(table, TableView) else ()
        try:
            return forms.request(form, seats)
        except forms.FormError:
            raise tornado.web.HTTPError(400) from None

    def edit_of(self, request: Request, text: str) -> Request:
        """The form's request as a correction of the record the body's `edit` names (`{event,
        seen}`: the record, and the version the page showed), else as it is."""
        edit = self.body().get("edit")
        if edit is None:
            return request
        if not isinstance(edit, dict):
            raise tornado.web.HTTPError(400)
        seen = edit.get("seen")
        return Edit(
            (request,),
            (text,),
            event_id=guard.record_id(edit.get("event")),
            seen=None if seen is None else guard.record_id(seen),
        )

    async def refused(self, msgid: str, params: Any) -> None:
        lang = await self.language()
        self.write({"ok": False, "error": Renderer(lang).alert(msgid, params)})

    async def post_in_chat(self, r: Renderer, reply: Reply, text: str) -> None:
        """The reply as the chat shows a typed command's, with its Undo button, under a line
        saying who recorded it in the app. The record stands if Telegram refuses the message."""
        out = r.render(reply)
        code = "<code>" + html.escape(text) + "</code>"
        name = html.escape(self.name)
        who = r._("{name} in the app: {command}", name=name, command=code)
        place, bot = self.place, self.env.application.bot
        try:
            await post(bot, place.chat_id, place.thread_id, Out(f"{who}\n{out.text}", out.buttons))
        except TelegramError:
            log.warning("could not post a hand recorded in the app", exc_info=True)


class CheckHandler(_Recording):
    """POST `{form[, edit]}` (`/app/api/check`, `/app/api/preview`): what the chat would reply,
    from the service's dry run (run, then rolled back: the same code path as recording); the
    refusal's reason if it would be refused. With `edit` (`{event, seen}`): the correction of
    that record, its difference shown before it is saved."""

    async def post(self) -> None:
        text, request = None, None
        try:
            text, request = await self.request_of(self.body().get("form"))
            request = self.edit_of(request, text)
            answer = await asyncio.to_thread(self.env.service.try_out, self.ctx(text), request)
        except (ParseError, ServiceError) as err:
            await self.refused(err.msgid, err.params)
            return
        out = self.renderer(answer.lang).render(answer.reply)
        self.write({"ok": True, "command": text, "html": out.text.split("\n")})


class RecordHandler(_Recording):
    """POST `{key, form}`: record once per key, and post it in the chat as if typed."""

    records = True

    async def post(self) -> None:
        data = self.body()
        try:
            key = str(uuid.UUID(str(data.get("key"))))
        except ValueError:
            raise tornado.web.HTTPError(400) from None
        try:
            text, request = await self.request_of(data.get("form"))
            request = self.edit_of(request, text)
            ctx = self.ctx(text, update_id_of(key, self.place.chat_id))
            answer = await self.env.service.perform(ctx, request)
        except (ParseError, ServiceError) as err:
            await self.refused(err.msgid, err.params)
            return
        r = self.renderer(answer.lang)
        reply = answer.reply
        if isinstance(reply, Edited | Info):  # ✎ Edit saved (or said already: a second tap)
            await self.edited(r, reply, text)
            return
        if isinstance(reply, RepeatAsk):  # the two-minute rule: the page asks, as the chat does
            lines = r.render(reply).text.split("\n")
            event, near = reply.view.event_id, reply.near  # near: the answer records this
            self.write({"ok": True, "ask": True, "reply": lines, "event": event, "near": near})
            return
        repeated = not isinstance(reply, Recorded) or reply.repeated
        if not repeated:
            await self.post_in_chat(r, reply, text)
        lines = hand_lines(r._, reply.view) if isinstance(reply, Recorded) else []
        command = guard.recorded(reply, text)
        self.write(
            {
                "ok": True,
                "command": command,
                "repeated": repeated,
                "html": lines,
                "reply": r.render(reply).text.split("\n"),
                "event": reply.view.event_id if isinstance(reply, Recorded) else None,
                "undone": isinstance(reply, Recorded) and reply.view.undone,
            }
        )

    async def edited(self, r: Renderer, reply: Edited | Info, text: str) -> None:
        """A correction saved: posted in the chat, its reply with its Undo (the correction's)."""
        if isinstance(reply, Info):
            self.write(
                {"ok": True, "repeated": True, "reply": [r.alert(reply.msgid, reply.params)]}
            )
            return
        await self.post_in_chat(r, reply, text)
        lines = r.render(reply).text.split("\n")
        self.write({"ok": True, "command": text, "reply": lines, "event": reply.edit_id})


class AgainHandler(_Recording):
    """POST `{key, event}`: [Record again] under the two-minute rule's question: the content of
    record `event` once more, once per key, posted in the chat as the chat's button would."""

    records = True

    async def post(self) -> None:
        data = self.body()
        try:
            key = str(uuid.UUID(str(data.get("key"))))
        except ValueError:
            raise tornado.web.HTTPError(400) from None
        event = guard.record_id(data.get("event"))
        request: Again | Answered = Again(event_id=event)
        if data.get("near") is not None:  # a near repeat: its own content, recorded as well
            request = Answered(guard.record_id(data.get("near")), replace=False)
        ctx = self.ctx("[again]", update_id_of(key, self.place.chat_id))
        try:
            answer = await self.env.service.perform(ctx, request)
        except ServiceError as err:
            await self.refused(err.msgid, err.params)
            return
        r, reply = self.renderer(answer.lang), answer.reply
        recorded = isinstance(reply, Recorded) and not reply.repeated
        if recorded:
            await self.post_in_chat(r, reply, "[" + r._("Record again") + "]")
        self.write(
            {
                "ok": True,
                "reply": r.render(reply).text.split("\n"),
                "event": reply.view.event_id if isinstance(reply, Recorded) else None,
            }
        )


class UndoHandler(_Recording):
    """POST `{key, event}`: undo that record as its Undo button in the chat would (the same
    permission rules: `ledger.undo`), once per key; the undo is posted in the chat."""

    records = True

    async def post(self) -> None:
        data = self.body()
        try:
            key = str(uuid.UUID(str(data.get("key"))))
        except ValueError:
            raise tornado.web.HTTPError(400) from None
        event = guard.record_id(data.get("event"))
        ctx = self.ctx("[undo]", update_id_of(key, self.place.chat_id))
        try:
            answer = await self.env.service.perform(ctx, Undo(event_id=event))
        except ServiceError as err:
            await self.refused(err.msgid, err.params)
            return
        r, reply = self.renderer(answer.lang), answer.reply
        if isinstance(reply, Info):  # a repeated key: said once already
            self.write({"ok": True, "reply": [r.alert(reply.msgid, reply.params)]})
            return
        await self.post_in_chat(r, reply, "[" + r._("Undo") + "]")
        self.write({"ok": True, "reply": r.render(reply).text.split("\n")})


def routes(env: Env) -> list[tuple[str, type[Api], dict[str, Any]]]:
    args = {"env": env}
    return [
        (r"/app/api/view", ViewHandler, args),
        (r"/app/api/history", HistoryHandler, args),
        (r"/app/api/check", CheckHandler, args),
        (r"/app/api/preview", CheckHandler, args),
        (r"/app/api/record", RecordHandler, args),
        (r"/app/api/undo", UndoHandler, args),
        (r"/app/api/again", AgainHandler, args),
        (r"/app/api/.*", Api, args),  # anything else: authenticated, then 405
    ]
