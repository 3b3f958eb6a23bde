"""/yue as chat messages: the game arranged (its poll's question and options too), the list of
what is arranged, a game called off, "the table is full", and the reminder to those who come
(HTML, in the chat's language, through the renderer's `_`)."""

from __future__ import annotations

from html import escape, unescape

from bot.commands.timezones import local
from bot.i18n import Gettext
from bot.presentation.out import Out
from service.replies import PlanCancelled, PlanLine, PlanMade, PlanNoted, PlanReminder, PlansView

WEEKDAYS_ZH = "一二三四五六日"


def when(_: Gettext, line: PlanLine, tz: str) -> str:
    """`Fri 12-12 20:00` / `周五 12-12 20:00`, in the chat's time zone."""
    at = local(line.at, tz)
    day = _("Mon Tue Wed Thu Fri Sat Sun").split()[at.weekday()]
    return f"{day} {at:%m-%d %H:%M}"


def game(_: Gettext, line: PlanLine) -> str:
    return escape(line.game) if line.game else _("a game")


def question(_: Gettext, v: PlanMade) -> str:
    """The poll's question (plain text: polls take no HTML)."""
    text = _("{when} {game}: are you coming?", when=when(_, v.line, v.tz), game=game(_, v.line))
    return unescape(text)


def options(_: Gettext) -> list[str]:
    """The poll's options: the first is "I come" (`service.plans.COMING`)."""
    return [unescape(_("I'm in ✋")), unescape(_("Not this time"))]


def made(_: Gettext, v: PlanMade) -> Out:
    text = _(
        "📅 Arranged: {game}, {when} ({seats} make a table). Answer the poll below; those who"
        " say yes are reminded {lead} minutes before. /yue lists what is arranged.",
        game=game(_, v.line),
        when=when(_, v.line, v.tz),
        seats=v.line.seats,
        lead=v.lead,
    )
    return Out(text)


def listed(_: Gettext, v: PlansView) -> Out:
    if not v.plans:
        return Out(_("No game is arranged here. Arrange one: /yue 周五 20:00 麻将"))
    title = _("Games arranged")
    lines = [f"<b>{title}</b>"]
    for line in v.plans:
        coming = ", ".join(escape(n) for n in line.coming) or "—"
        lines.append(
            _(
                "{n}. {when} {game} · coming {count}/{seats}: {names}",
                n=line.number,
                when=when(_, line, v.tz),
                game=game(_, line),
                count=len(line.coming),
                seats=line.seats,
                names=coming,
            )
        )
    lines.append(_("Call one off: /yue cancel [n]"))
    return Out("\n".join(lines))


def cancelled(_: Gettext, v: PlanCancelled) -> Out:
    return Out(
        _(
            "❌ Called off: {game}, {when}.",
            game=game(_, v.line),
            when=when(_, v.line, v.tz),
        )
    )


def noted(_: Gettext, v: PlanNoted) -> Out:
    """A vote's answer: nothing, or that the table is full (said once)."""
    if v.full is None:
        return Out("")
    return Out(
        _(
            "🀄 The table is full for {when} {game}: {names}.",
            when=when(_, v.full, v.tz),
            game=game(_, v.full),
            names=", ".join(escape(n) for n in v.full.coming),
        )
    )


def reminder(_: Gettext, v: PlanReminder) -> Out:
    names = " ".join(f'<a href="tg://user?id={uid}">{escape(name)}</a>' for uid, name in v.mentions)
    text = _(
        "⏰ {game} at {when}, in {minutes} minutes.",
        game=game(_, v.line),
        when=when(_, v.line, v.tz),
        minutes=v.minutes,
    )
    if names:
        text += "\n" + _("Coming: {names}", names=names)
    else:
        text += "\n" + _("Nobody has said yes yet.")
    return Out(text)
