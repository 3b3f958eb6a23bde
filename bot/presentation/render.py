"""Reply models → chat messages (HTML) in the chat's language, with their buttons.

`RENDERERS` is the registry: each type of the `Reply` union → the function of its family that
renders it (`render_hands` a record, `render_people` the table and its people, `render_views`
what everyone may look at, `render_money` settle-up, `render_records` the questions about
records, `render_insight` /stats, /chart, /export, `rules_text` /rules, /help and /set,
`render_beyond` /me, /rating and the cards). A test renders every type in both languages."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import lru_cache
from html import escape, unescape
from typing import Any, TypeVar

from bot.commands import labels
from bot.i18n import Gettext, translator
from bot.presentation import (
    render_beyond,
    render_edits,
    render_hands,
    render_insight,
    render_money,
    render_people,
    render_plans,
    render_records,
    render_views,
    rules_text,
)
from bot.presentation.out import Out
from service import replies as r
from service.names import visible

R = TypeVar("R")
#: A reply type's renderer: the language's `_`, the reply → the message.
Render = Callable[[Gettext, Any], Out]


@lru_cache(maxsize=4096)
def template(lang: str, msgid: str) -> str:
    """A message translated and HTML-escaped (the catalogs never change while running)."""
    return escape(translator(lang).gettext(msgid), quote=False)


class Renderer:
    """Renders replies in one language."""

    def __init__(self, lang: str) -> None:
        self.lang = lang

    def _(self, msgid: str, **params: Any) -> str:
        """The translated template, HTML-escaped, filled with `params` (already safe HTML)."""
        text = template(self.lang, msgid)
        return text.format(**params) if params else text

    def render(self, reply: r.Reply) -> Out:
        """The message of `reply`, by its type's renderer (`RENDERERS`)."""
        return RENDERERS[type(reply)](self._, reply)

    def error(self, msgid: str, params: Mapping[str, Any], usage: str = "") -> Out:
        shown = shown_params(self._, params)
        text = "⚠️ " + self._(msgid, **shown)
        if usage:  # a message that ends in a colon leads to its example itself
            lead = (
                "" if text.rstrip().endswith((":", "：")) else "\n" + self._("Write it like this:")
            )
            text += lead + f"\n<code>{self._(usage)}</code>"
        return Out(text)

    def alert(self, msgid: str, params: Mapping[str, Any] | None = None) -> str:
        """A message as plain text for a button's alert (Telegram allows 200 characters)."""
        shown = shown_params(self._, {k: v for k, v in (params or {}).items() if k != "usage"})
        return unescape(self._(msgid, **shown))[:200]


def shown_params(_: Gettext, params: Mapping[str, Any]) -> dict[str, str]:
    """A message's parameters as shown; a `problem` (a rule's text) filled with the others."""
    shown = {k: shown_param(_, k, v) for k, v in params.items()}
    if "problem" in shown:
        shown["problem"] = shown["problem"].format(**shown)
    return shown


def shown_param(_: Gettext, key: str, value: object) -> str:
    """A message parameter: rule texts and game names are translated, the rest (what a member
    typed, too) neutralised and escaped."""
    if key in ("problem", "family"):
        return _(str(value))
    if key in ("game", "wanted"):
        return "/".join(_(labels.GAME.get(g, g)) for g in str(value).split("/"))
    return escape(visible(str(value)))


def info(_: Gettext, v: r.Info) -> Out:
    """A short message of no data of its own, with the usage it names."""
    params = {k: shown_param(_, k, x) for k, x in v.params.items() if k != "usage"}
    usage = _(str(v.params["usage"])) if "usage" in v.params else ""
    return Out(_(v.msgid, **params) + (f"\n<code>{usage}</code>" if usage else ""))


def _entry(kind: type[R], render: Callable[[Gettext, R], Out]) -> tuple[type[Any], Render]:
    """A registry entry: mypy checks that `render` takes replies of `kind`."""
    return kind, render


RENDERERS: Mapping[type[Any], Render] = dict(
    [
        _entry(r.Recorded, render_hands.recorded),
        _entry(r.Undone, render_hands.undone),
        _entry(r.Edited, render_edits.edited),
        _entry(r.TableView, render_people.table_view),
        _entry(r.NewAsk, render_people.new_ask),
        _entry(r.NameAsk, render_people.name_ask),
        _entry(r.Claimed, render_people.claimed),
        _entry(r.Linked, render_people.linked),
        _entry(r.Unlinked, render_people.unlinked),
        _entry(r.Renamed, render_people.renamed),
        _entry(r.Merged, render_people.merged),
        _entry(r.StandingsView, render_views.standings),
        _entry(r.HistoryView, render_views.history),
        _entry(r.SeasonsView, render_views.seasons),
        _entry(r.ResetAsk, render_views.reset_ask),
        _entry(r.ResetDone, render_views.reset_done),
        _entry(r.SettleView, render_money.settle),
        _entry(r.MoneyView, render_money.money),
        _entry(r.StakeSet, render_money.stake_set),
        _entry(r.UndoAsk, render_records.undo_ask),
        _entry(r.RepeatAsk, render_records.repeat_ask),
        _entry(r.UndoPick, render_records.undo_pick),
        _entry(r.StatsView, render_insight.stats),
        _entry(r.ChartData, render_insight.chart),
        _entry(r.ExportData, render_insight.export),
        _entry(r.RulesView, rules_text.rules),
        _entry(r.HelpView, rules_text.help_view),
        _entry(r.SettingChanged, rules_text.setting_changed),
        _entry(r.MeView, render_beyond.me),
        _entry(r.MeElsewhere, render_beyond.me_elsewhere),
        _entry(r.MineView, render_beyond.mine),
        _entry(r.RatingView, render_beyond.rating),
        _entry(r.Card, render_beyond.card),
        _entry(r.Info, info),
        _entry(r.SittingClosed, render_beyond.sitting_closed),
        _entry(r.PlanMade, render_plans.made),
        _entry(r.PlansView, render_plans.listed),
        _entry(r.PlanCancelled, render_plans.cancelled),
        _entry(r.PlanNoted, render_plans.noted),
        _entry(r.PlanReminder, render_plans.reminder),
    ]
)
