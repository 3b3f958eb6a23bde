"""Reply models → chat messages (HTML) in the chat's language, with their buttons."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from html import escape, unescape
from typing import Any

from bot.commands import labels
from bot.commands.callback_data import (
    cancel_data,
    card_data,
    fits,
    new_data,
    reset_data,
    undo_data,
)
from bot.commands.timezones import local, zone_label
from bot.i18n import N_, translator
from bot.presentation import render_beyond, render_people, render_records
from bot.presentation.numbers import fmt
from bot.presentation.render_free import (
    free_lines,
    record_title,
    table_title,
    totals_line,
    unit_title,
)
from bot.presentation.render_insight import stats_text
from bot.presentation.render_money import money_text, settle_text, stake_text
from bot.presentation.render_tiles import history_lines, reading_line
from bot.presentation.rules_text import help_text, rules_text
from scoring import EventKind, Formula, Game, HandValue, Pattern
from service import replies as r
from service.hand_views import FreeView, HandView, K510View, KongView, MahjongView, Payment
from service.names import visible

QUOTE_LIMIT = 80  # characters of a recorded command echoed back

#: Setting values as a player says them: a switch translated, a language by its own name (a
#: stake stays as typed).
SWITCH = {"on": N_("on"), "off": N_("off")}
LANGUAGE_NAMES = {"zh": "中文", "en": "English"}

#: Why a winner's normal payer pays, by the win's formula (m = 2^n for a chain of n kongs).
WHY = {
    "self_draw": N_("self-draw"),
    "small_pao": N_("small hand on a discard"),
    "big_pao": N_("big hand on a discard: {unit} × 1.5"),
    "big_cannon": N_("pays for all three: 3 × {unit}"),
    "double_self_draw": N_("each pays double: 2 × {unit}"),
    "gangkai_concealed": N_("each pays {unit} × {m} + {n}"),
    "gangkai_exposed": N_("the first konged player pays for all three: 3 × {unit} × {m} + {n}"),
}
CANNON_CHAIN = N_("pays for all three, {n} kongs in a row: 3 × {unit} × {m}")
#: Wins the three others pay (self-drawn): a sealed player pays all three shares.
EACH_PAYS = frozenset({"self_draw", "double_self_draw", "gangkai_concealed"})
KONGED = "gangkai_exposed"  # the konged player pays: a sealed player pays it instead
#: Why a sealed player (封胡) pays: (without 死双, with 死双) by kind of win.
SEALED = {
    "each": (
        N_("封胡 sealed: pays for all three, 3 × {value}"),
        N_("封胡 sealed, 死双: pays for all three, doubled: 3 × {value} × 2"),
    ),
    "konged": (
        N_("封胡 sealed: pays the 杠上花 instead of the konged player: 3 × {unit} × {m} + {n}"),
        N_(
            "封胡 sealed, 死双: pays the 杠上花 instead of the konged player, doubled: "
            "(3 × {unit} × {m} + {n}) × 2"
        ),
    ),
    "pao": (
        N_("封胡 sealed: pays the same again"),
        N_("封胡 sealed, 死双: pays it twice again: 2 × {value}"),
    ),
}


def quote(command: str) -> str:
    """A recorded command as echoed in replies: escaped, neutralised (`visible`), and cut to a
    sensible length."""
    command = visible(command)
    return escape(command if len(command) <= QUOTE_LIMIT else command[: QUOTE_LIMIT - 1] + "…")


@lru_cache(maxsize=4096)
def template(lang: str, msgid: str) -> str:
    """A message translated and HTML-escaped (the catalogs never change while running)."""
    return escape(translator(lang).gettext(msgid), quote=False)


@dataclass(frozen=True)
class Button:
    """An inline button: it sends `data` back to the bot, or opens `url`, or opens the Mini App
    page `web_app` (Telegram allows those in private chats only)."""

    label: str
    data: str = ""
    url: str | None = None
    web_app: str | None = None


@dataclass(frozen=True)
class Out:
    """A message to send: HTML text and rows of inline buttons."""

    text: str
    buttons: tuple[tuple[Button, ...], ...] = ()


NOT_CONCEALED = N_(
    "ℹ️ {name}'s hand was scored as not concealed (门清 not given): if it was concealed, /undo "
    "and write it again with mq."
)


def _shaped(shaped: render_records.Shaped) -> Out:
    text, rows = shaped
    return Out(text, tuple(tuple(Button(label, data) for label, data in row) for row in rows))


class Renderer:
    """Renders replies in one language."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def _(self, msgid: str, **params: Any) -> str:
        """The translated template, HTML-escaped, filled with `params` (already safe HTML)."""
        text = template(self.lang, msgid)
        return text.format(**params) if params else text

    def render(self, reply: r.Reply) -> Out:
        handler: Callable[[Any], Out] = getattr(self, "_" + type(reply).__name__.lower())
        return handler(reply)

    def error(self, msgid: str, params: Mapping[str, Any], usage: str = "") -> Out:
        shown = self._params(params)
        text = "⚠️ " + self._(msgid, **shown)
        if usage:
            text += "\n" + self._("Write it like this:") + f"\n<code>{self._(usage)}</code>"
        return Out(text)

    def alert(self, msgid: str, params: Mapping[str, Any] | None = None) -> str:
        """A message as plain text for a button's alert (Telegram allows 200 characters)."""
        shown = self._params({k: v for k, v in (params or {}).items() if k != "usage"})
        return unescape(self._(msgid, **shown))[:200]

    def _params(self, params: Mapping[str, Any]) -> dict[str, str]:
        """A message's parameters as shown; a `problem` (a rule's text) filled with the others."""
        shown = {k: self._param(k, v) for k, v in params.items()}
        if "problem" in shown:
            shown["problem"] = shown["problem"].format(**shown)
        return shown

    def _param(self, key: str, value: object) -> str:
        """A message parameter: rule texts and game names are translated, the rest (what a
        member typed, too) neutralised and escaped."""
        if key in ("problem", "family"):
            return self._(str(value))
        if key in ("game", "wanted"):
            return "/".join(self._(labels.GAME.get(g, g)) for g in str(value).split("/"))
        return escape(visible(str(value)))

    # --- recording -------------------------------------------------------------------------

    def _recorded(self, reply: r.Recorded) -> Out:
        lines = self.hand(reply.view)
        if reply.progress is not None:
            lines.append(self.progress(reply.progress))
        if reply.dealer is not None:
            lines.append(self._("Next dealer: {name}", name=escape(reply.dealer)))
        if reply.totals:
            lines.append(totals_line(self._, reply.totals))
        for name in reply.not_concealed:
            lines.append(self._(NOT_CONCEALED, name=escape(name)))
        if reply.repeated:
            lines.append(self._("(This was recorded already; nothing changed.)"))
        if reply.archived_season is not None:
            lines.append(
                self._(
                    "It belongs to season {n}, archived since: see it with /standings {n}.",
                    n=reply.archived_season,
                )
            )
        buttons = ((Button(self._("Undo"), undo_data(reply.view.event_id)),),)
        return Out("\n".join(lines), () if reply.view.undone else buttons)

    def _undone(self, reply: r.Undone) -> Out:
        view = reply.view
        hand = view.kind == EventKind.HAND
        what = self._("hand #{n}", n=view.hand_no) if hand else self._("the kong")
        if view.kind == EventKind.PAY or view.game == Game.FREE:
            what = record_title(self._, view)
        lines = [self._("↩️ Undone: {what}", what=what) + f" — <i>{quote(view.text)}</i>"]
        net = tuple((name, -amount) for name, amount in view.net)
        if net:
            lines.append(self._("Balances change by: {net}", net=self.net(net)))
        else:
            lines.append(self._("No points change: the kong was not settled yet."))
        if reply.dealer is not None:
            lines.append(self._("Dealer: {name}", name=escape(reply.dealer)))
        return Out("\n".join(lines))

    def hand(self, view: HandView) -> list[str]:
        """The lines describing one recorded hand or kong, with its payments and nets."""
        detail = view.detail
        if isinstance(detail, KongView):
            return self.kong(view, detail)
        if isinstance(detail, FreeView):
            lines = free_lines(self._, view, detail, quote(view.text))
            if view.kind == EventKind.PAY:
                return lines
            return [*lines, self._("Scores this round: {net}", net=self.net(view.net))]
        if isinstance(detail, MahjongView):
            lines = self.mahjong(view, detail)
        else:
            lines = self.k510(view, detail)
        return [*lines, self._("Net this hand: {net}", net=self.net(view.net))]

    @staticmethod
    def net(net: Sequence[tuple[str, Fraction | int]]) -> str:
        """`老王 +36 · 小李 -12 · 阿张 -12 · Chen -12`."""
        return " · ".join(f"{escape(name)} {fmt(amount, signed=True)}" for name, amount in net)

    def kong(self, view: HandView, kong: KongView) -> list[str]:
        return [
            self._("🀄 Kong recorded: {kind}", kind=self._(labels.KONG[kong.kind]))
            + f" — <i>{quote(view.text)}</i>",
            self._("Nobody's points change now: kong points settle when the hand ends."),
        ]

    def mahjong(self, view: HandView, hand: MahjongView) -> list[str]:
        """The hand, then each winner with the payments for his win, then the kong points."""
        head = self._("🀄 Hand #{n}", n=view.hand_no)
        if not hand.wins:
            head += " · " + self._("流局 drawn hand")
        lines = [head + f" — <i>{quote(view.text)}</i>"]
        # Each win's payments come together, in the order of the wins, all to its winner.
        by_winner: dict[str, list[Payment]] = {}
        for p in view.payments:
            if p.reason != "kong":
                by_winner.setdefault(p.payee or "?", []).append(p)
        for win, (winner, paid) in zip(hand.wins, by_winner.items(), strict=True):
            lines.append(self.win_line(winner, win.value, unsaid=win.unsaid))
            lines += [reading_line(self._, win.tiles)] if win.tiles is not None else []
            lines += [self.payment(p) for p in paid]
        lines += [self.payment(p) for p in view.payments if p.reason == "kong"]
        return lines

    def win_line(self, winner: str, value: HandValue, *, unsaid: bool = False) -> str:
        """`• 老王 胡：自摸 · 碰碰胡 · 清一色 · 基数 3 × 4 倍 = 12`; `unsaid`: 门清 was not
        written though it may have been ("not 门清")."""
        pattern = value.pattern + (str(value.groups) if value.pattern is Pattern.QIDUI else "")
        flags = {"qingyise": value.qingyise, "menqing": value.menqing}
        flags["quanqiuren"] = value.quanqiuren
        parts = [self._(labels.WIN[value.how]), self._(labels.PATTERN[pattern])]
        parts += [self._(labels.FLAG[flag]) for flag, given in flags.items() if given]
        parts += [self._("not 门清")] if unsaid else []
        if value.formula is not Formula.SMALL_PAO:  # a small hand on a discard: 2 or 4, no unit
            parts.append(
                self._("base {base} × {k} = {unit}", base=value.base, k=value.k, unit=value.unit)
            )
        return self._("• {winner} wins: {what}", winner=escape(winner), what=" · ".join(parts))

    def why(self, p: Payment) -> str:
        """Why `p` is paid, in the words and numbers of the table."""
        if p.kong is not None:
            return self._(labels.KONG[p.kong])
        v = p.value
        assert v is not None  # a win's or a sealed player's payment
        n = v.chain
        numbers = {"value": v.value, "unit": v.unit, "n": n, "m": 2**n}
        if p.reason == "sealed":
            formula = v.formula
            family = "each" if formula in EACH_PAYS else "konged" if formula == KONGED else "pao"
            return self._(SEALED[family][p.sisuang], **numbers)
        if v.formula is Formula.BIG_CANNON and n > 1:
            return self._(CANNON_CHAIN, **numbers | {"m": 2 ** (n - 1)})
        return self._(WHY[v.formula], **numbers)

    def payment(self, p: Payment) -> str:
        """`  小李 → 老王 12 · 自摸` (510K: `  老王 +22.5`)."""
        if p.reason == "pay":
            return f"  {escape(p.payer or '?')} → {escape(p.payee or '?')} {fmt(p.amount)}"
        if p.reason == "score":
            name = p.payee if p.payee is not None else p.payer
            amount = p.amount if p.payee is not None else -p.amount
            return f"  {escape(name or '?')} {fmt(amount, signed=True)}"
        payer, payee = escape(p.payer or "?"), escape(p.payee or "?")
        return f"  {payer} → {payee} {fmt(p.amount)} · {self.why(p)}"

    def k510(self, view: HandView, hand: K510View) -> list[str]:
        names = view.names
        lines = [self._("🃏 510K hand #{n}", n=view.hand_no) + f" — <i>{quote(view.text)}</i>"]
        result = hand.result
        if hand.marathon_hands is not None:
            points = self.points(names, hand.card_points)
            lines.append(self._("Card points this hand: {points}", points=points))
            if not hand.marathon_over:
                return [*lines, self._("Scores come when the marathon ends.")]
            lines.append(self._("🏁 The marathon is over after {n} hands.", n=hand.marathon_hands))
        if result is None:
            return lines
        lines.append(self._("Card points: {points}", points=self.points(names, result.card_points)))
        if result.team_points is not None:
            teams = self._teams(names)
            lines.append(
                self._(
                    "Teams: {a} {pa} · {b} {pb} → {winner} win",
                    a=escape(teams[0]),
                    pa=fmt(result.team_points[0], signed=True),
                    b=escape(teams[1]),
                    pb=fmt(result.team_points[1], signed=True),
                    winner=escape(teams[result.winner]),
                )
            )
        if result.doubled:
            lines.append(self._("Doubled ×2 (the losers took no table points)."))
        if result.bonus:
            lines.append(self._("Marathon bonus: the winners get 10 percent more."))
        if result.incomplete:
            lines.append(
                self._("Note: the figures add up to {total}, not 100.", total=hand.reported)
            )
        return lines

    @staticmethod
    def points(names: Sequence[str], points: Sequence[int]) -> str:
        """`老王 +60 · 小李 -20 · …`: each seat's card points."""
        return " · ".join(
            f"{escape(n)} {fmt(p, signed=True)}" for n, p in zip(names, points, strict=True)
        )

    @staticmethod
    def _teams(names: Sequence[str]) -> tuple[str, str]:
        return f"{names[0]}+{names[2]}", f"{names[1]}+{names[3]}"

    def progress(self, p: r.Progress) -> str:
        sides = " · ".join(
            self._(
                "{side} {points}/{target} ({left} to go)",
                side=escape(side),
                points=points,
                target=p.target,
                left=max(p.target - points, 0),
            )
            for side, points in p.sides
        )
        line = self._("🏃 Marathon after {n} hand(s): {sides}", n=p.hands, sides=sides)
        for name, old in p.took_over:
            line += " " + self._(
                "({name} plays on for {old}: the team keeps its points.)",
                name=escape(name),
                old=escape(old),
            )
        if p.newcomers:
            line += " " + self._(
                "({names} joined the marathon at 0.)", names=escape(", ".join(p.newcomers))
            )
        return line

    # --- tables ---------------------------------------------------------------------------

    def _tableview(self, v: r.TableView) -> Out:
        text, claims = render_people.table_text(self._, v)
        return Out(text, tuple((Button(label, data),) for label, data in claims))

    def _nameask(self, v: r.NameAsk) -> Out:
        text, answers = render_people.name_ask(self._, v)
        return Out(
            text, (tuple(Button(label, data) for label, data in answers),) if answers else ()
        )

    def _renamed(self, v: r.Renamed) -> Out:
        return Out(render_people.renamed(self._, v))

    def _merged(self, v: r.Merged) -> Out:
        return Out(render_people.merged(self._, v))

    def _claimed(self, v: r.Claimed) -> Out:
        text = self._(
            "{member} is {name} now: {name}'s seat and balance are theirs. "
            "An admin can undo it with /unlink {name}.",
            member=escape(v.member),
            name=escape(v.name),
        )
        return Out(text)

    def _unlinked(self, v: r.Unlinked) -> Out:
        return Out(self._("{name} is a guest again, linked to nobody.", name=escape(v.name)))

    def _linked(self, v: r.Linked) -> Out:
        return Out(
            self._(
                "{guest} is now linked to @{user}.", guest=escape(v.guest), user=escape(v.username)
            )
        )

    # --- views ----------------------------------------------------------------------------

    def _standingsview(self, v: r.StandingsView) -> Out:
        title = (
            self._("Standings of season {n} (archived):", n=v.season)
            if v.archived
            else self._("Standings of season {n}:", n=v.season)
        )
        lines = [f"<b>{title}</b>"]
        if not v.sections:
            lines.append(self._("No hands recorded yet."))
        for unit, rows in v.sections:
            lines.append(self._("{unit}:", unit=unit_title(self._, unit)))
            lines += [
                f"{i}. {escape(name)} {fmt(amount, signed=True)}"
                for i, (name, amount) in enumerate(rows, 1)
            ]
        if v.progress is not None:
            lines.append(self.progress(v.progress))
        return Out("\n".join(lines))

    def _historyview(self, v: r.HistoryView) -> Out:
        title = self._("Last hands, season {n}", n=v.season)
        zone = self._("(times: {zone})", zone=escape(zone_label(v.tz)))
        lines = [f"<b>{title}</b> {zone}"]
        if not v.hands:
            lines.append(self._("No hands recorded yet."))
        several = len({view.table_id for view in v.hands}) > 1  # each table numbers its own
        table: int | None = -1  # no table id is negative: the first hand shows its table
        for view in v.hands:
            if several and view.table_id != table:
                table = view.table_id
                lines.append(f"— {table_title(self._, view)} —")
            mark = " " + self._("[undone]") if view.undone else ""
            when = local(view.at, v.tz).strftime("%m-%d %H:%M")
            lines.append(f"#{view.hand_no} {when} <i>{quote(view.text)}</i>{mark}")
            lines += [self.payment(p) for p in view.payments] or ["  " + self._("no payments")]
            lines += history_lines(self._, view)
        return Out("\n".join(lines))

    def _settleview(self, v: r.SettleView) -> Out:
        """The settle-up; under the season in play's, the night's card offered (own row)."""
        buttons = self._archive(v.season, v.archive)
        if any(plan for _, plan in v.sections):
            buttons += ((Button(self._("🖼 The night's card"), card_data()),),)
        return Out(settle_text(self._, v), buttons)

    def _moneyview(self, v: r.MoneyView) -> Out:
        return Out(money_text(self._, v), self._archive(v.season, v.archive))

    def _stakeset(self, v: r.StakeSet) -> Out:
        return Out(stake_text(self._, v))

    def _archive(self, season: int, season_id: int | None) -> tuple[tuple[Button, ...], ...]:
        """An admin's settle-up: the button that archives the season (as /reset's confirms)."""
        if season_id is None:
            return ()
        label = self._("✅ Settled — archive season {n}", n=season)
        return ((Button(label, reset_data(season_id)),),)

    def _seasonsview(self, v: r.SeasonsView) -> Out:
        title = self._("Seasons")
        lines = [f"<b>{title}</b>"]
        if not v.seasons:
            lines.append(self._("No seasons yet."))
        for s in v.seasons:
            end = s.archived_at.strftime("%Y-%m-%d") if s.archived_at else self._("current")
            lines.append(
                self._(
                    "Season {n}: {start} – {end}, {hands} hands",
                    n=s.number,
                    start=s.opened_at.strftime("%Y-%m-%d"),
                    end=end,
                    hands=s.hands,
                )
            )
        lines.append(self._("Show one with /standings <season>."))
        return Out("\n".join(lines))

    def _resetask(self, v: r.ResetAsk) -> Out:
        text = self._(
            "Archive season {n} and start season {m}? Everyone starts again from 0; "
            "season {n} stays viewable with /standings {n}.",
            n=v.season,
            m=v.season + 1,
        )
        buttons = (
            (
                Button(self._("Confirm"), reset_data(v.season_id)),
                Button(self._("Cancel"), cancel_data()),
            ),
        )
        return Out(text, buttons)

    def _newask(self, v: r.NewAsk) -> Out:
        game = self._(labels.GAME[v.request.game.value])
        lines = [
            self._(
                "Replace the open table ({old}: {names}) with a new one ({game})?",
                old=self._(labels.GAME[v.game]),
                names=escape(", ".join(v.seated)),
                game=game,
            )
        ]
        if v.kongs:
            lines.append(
                self._("{n} kong(s) of the hand being played are dropped unpaid.", n=v.kongs)
            )
        if v.marathon:
            lines.append(self._("The running marathon's totals are dropped."))
        left = v.seated[len(v.kept) :]
        if left:
            lines.append(
                self._(
                    "{names} keep their seats; no seat for {left}.",
                    names=escape(", ".join(v.kept)),
                    left=escape(", ".join(left)),
                )
            )
        else:
            lines.append(self._("Everyone keeps their seat."))
        lines.append(self._("Typed: /new … confirm."))
        data = new_data(v.replaces, v.request)
        confirm = (Button(self._("Confirm"), data),) if fits(data) else ()
        buttons = ((*confirm, Button(self._("Cancel"), cancel_data())),)
        return Out("\n".join(lines), buttons)

    def _undoask(self, v: r.UndoAsk) -> Out:
        return _shaped(render_records.undo_ask(self._, v, quote(v.text)))

    def _repeatask(self, v: r.RepeatAsk) -> Out:
        return _shaped(render_records.repeat_ask(self._, v, quote(v.view.text)))

    def _undopick(self, v: r.UndoPick) -> Out:
        return _shaped(render_records.undo_pick(self._, v, [quote(c.text) for c in v.choices]))

    def _resetdone(self, v: r.ResetDone) -> Out:
        text = self._(
            "Season {old} archived. Season {new} begins: everyone starts from 0. "
            "See the old one with /standings {old}.",
            old=v.archived,
            new=v.new,
        )
        if v.last_hand is not None:
            text += "\n" + self._(
                "This table's hands up to #{n} are in season {old}; in season {new} they count"
                " from #1 again.",
                n=v.last_hand,
                old=v.archived,
                new=v.new,
            )
        return Out(text)

    def _settingchanged(self, v: r.SettingChanged) -> Out:
        if v.value in SWITCH:
            value = self._(SWITCH[v.value])
        elif v.key == "tz":
            value = escape(zone_label(v.value))
        else:
            value = escape(LANGUAGE_NAMES.get(v.value, v.value))
        return Out(self._("Set {key}: {value}.", key=self._(labels.SETTING[v.key]), value=value))

    def _info(self, v: r.Info) -> Out:
        params = {k: self._param(k, x) for k, x in v.params.items() if k != "usage"}
        usage = self._(str(v.params["usage"])) if "usage" in v.params else ""
        text = self._(v.msgid, **params)
        return Out(text + (f"\n<code>{usage}</code>" if usage else ""))

    def _statsview(self, v: r.StatsView) -> Out:
        return Out(stats_text(self._, v))

    def _rulesview(self, v: r.RulesView) -> Out:
        return Out(rules_text(self._, v))

    def _helpview(self, v: r.HelpView) -> Out:
        return Out(help_text(self._))

    # --- /me, /rating, the cards (bot.presentation.render_beyond) ---------------------------

    def _meview(self, v: r.MeView) -> Out:
        return Out(render_beyond.me_text(self._, v))

    def _meelsewhere(self, v: r.MeElsewhere) -> Out:
        return Out(self._(render_beyond.ME_PRIVATE))

    def _ratingview(self, v: r.RatingView) -> Out:
        return Out(render_beyond.rating_text(self._, v))

    def _card(self, v: r.Card) -> Out:
        return Out(render_beyond.card_caption(self._, v))
