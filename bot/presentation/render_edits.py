"""A correction as the chat shows it (/edit): each player's change and who made it, the record
as it reads now, with Undo; its undo; and a record's versions (`/history <n>`)."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape

from bot.commands.callback_data import undo_data
from bot.commands.timezones import local
from bot.i18n import Gettext
from bot.presentation.numbers import fmt
from bot.presentation.out import Button, Out
from bot.presentation.render_hands import hand_lines, net_text, quote
from service import replies as r
from service.hand_views import HandView


def changes(before: HandView, after: HandView) -> str:
    """`阿张 +9 → +18 · 小李 -9 → -18`: each player whose net the correction changed."""
    old, new = dict(before.net), dict(after.net)
    names = [*old, *(n for n in new if n not in old)]
    return " · ".join(
        f"{escape(name)} {fmt(old.get(name, 0), signed=True)} → "
        f"{fmt(new.get(name, 0), signed=True)}"
        for name in names
        if old.get(name, 0) != new.get(name, 0)
    )


def edited(_: Gettext, reply: r.Edited) -> Out:
    view, n = reply.view, reply.view.hand_no
    record = f"#{n}" if n is not None else _("the kong")
    moved = changes(reply.before, view) or _("no payment changes")
    words = []
    if reply.added:
        words.append(_("added {words}", words=escape(" ".join(reply.added))))
    if reply.dropped:
        words.append(_("dropped {words}", words=escape(" ".join(reply.dropped))))
    said = _(" ({words})", words=_("; ").join(words)) if words else ""
    params = {"record": record, "changes": moved, "words": said, "name": escape(reply.by)}
    if reply.undone:
        lines = [_("↩️ {record} back as before: {changes}{words} — by {name}", **params)]
    else:
        lines = [_("✎ {record} corrected: {changes}{words} — by {name}", **params)]
    lines.append(_("Before: {text}", text=f"<i>{quote(reply.before.text)}</i>"))
    lines += hand_lines(_, view)
    if reply.older:
        lines.append(_("An earlier hand: only its payments changed, the dealer stays."))
    if reply.dealer is not None:
        lines.append(_("Next dealer: {name}", name=escape(reply.dealer)))
    buttons = () if reply.undone else ((Button(_("Undo"), undo_data(reply.edit_id)),),)
    return Out("\n".join(lines), buttons)


def version_lines(_: Gettext, versions: Sequence[r.Version], zone: str) -> list[str]:
    """`/history <n>`: every version of a corrected record, who wrote it and when."""
    if not versions:
        return []
    title = _("#{n} ✎ every version", n=versions[-1].view.hand_no)
    lines = [f"<b>{title}</b>"]
    for i, version in enumerate(versions, start=1):
        when = local(version.at, zone).strftime("%m-%d %H:%M")
        current = i == len(versions)
        lines.append(
            _(
                "{i}. {when} {name}: {text}",
                i=i,
                when=when,
                name=escape(version.by),
                text=f"<i>{quote(version.view.text)}</i>",
            )
            + (" " + _("(now)") if current else "")
        )
        lines.append("   " + (net_text(version.view.net) or _("no payments")))
    return lines
