"""The questions about records: the two-minute rule's, /undo's "one more?" and "which
table?": texts and their buttons."""

from __future__ import annotations

from html import escape

from bot.commands.callback_data import again_data, cancel_data, near_data, undo_data
from bot.i18n import Gettext
from bot.presentation.out import DANGER, SUCCESS, Button, Out
from bot.presentation.render_free import record_title, table_title
from bot.presentation.render_hands import quote
from scoring import EventKind, Game
from service import replies as r
from service.hand_views import HandView


def what(_: Gettext, view: HandView) -> str:
    """ "hand #3", "the kong", "transfer #4"."""
    if view.kind == EventKind.KONG or view.hand_no is None:
        return _("the kong")
    if view.kind == EventKind.PAY or view.game == Game.FREE:
        return record_title(_, view)
    return _("hand #{n}", n=view.hand_no)


def undo_ask(_: Gettext, v: r.UndoAsk) -> Out:
    """A bare /undo right after another member's undo: one more?"""
    what = _("hand #{n}", n=v.hand_no) if v.hand_no is not None else _("the kong")
    typed = f"<i>{quote(v.text)}</i>"
    text = _(
        "{name} has just undone a record. Undo one more, {what} — {text}? (Typed: /undo confirm.)",
        name=escape(v.undone_by),
        what=what,
        text=typed,
    )
    return Out(
        text,
        (
            (
                Button(_("Undo"), undo_data(v.event_id), style=DANGER),
                Button(_("Cancel"), cancel_data()),
            ),
        ),
    )


def repeat_ask(_: Gettext, v: r.RepeatAsk) -> Out:
    """The same content as the table's last record, within two minutes: record again?"""
    if v.near is not None:
        return near_ask(_, v, v.near)
    typed = f"<i>{quote(v.view.text)}</i>"
    text = _(
        "This is the same as {what}, recorded {seconds} s ago by {name}: {text}\n"
        "Nothing is recorded yet. If it really is another one, press Record again.",
        what=what(_, v.view),
        seconds=v.seconds,
        name=escape(v.view.recorded_by),
        text=typed,
    )
    again = Button(_("Record again"), again_data(v.view.event_id), style=SUCCESS)
    return Out(text, ((again, Button(_("No"), cancel_data("r"))),))


def near_ask(_: Gettext, v: r.RepeatAsk, near: int) -> Out:
    """Nearly the table's last record (the same winners and way, or finishing order), within
    two minutes: the difference, and Replace #N / Record both / No."""
    words = []
    if v.added:
        words.append(_("adds {words}", words=escape(" ".join(v.added))))
    if v.dropped:
        words.append(_("leaves out {words}", words=escape(" ".join(v.dropped))))
    lines = [
        _(
            "This looks like {what}, recorded {seconds} s ago by {name}, with a difference:",
            what=what(_, v.view),
            seconds=v.seconds,
            name=escape(v.view.recorded_by),
        ),
        _("recorded: {text}", text=f"<i>{quote(v.view.text)}</i>"),
        _("now: {text}", text=f"<i>{quote(v.text)}</i>"),
    ]
    if words:
        lines.append(_("This one {what}.", what=_(", ").join(words)))
    lines.append(
        _(
            "Nothing is recorded yet: replace {what} with it, record both, or neither?",
            what=what(_, v.view),
        )
    )
    n = v.view.hand_no
    replace = Button(_("Replace #{n}", n=n), near_data(near, replace=True))
    both = Button(_("Record both"), near_data(near, replace=False), style=SUCCESS)
    return Out("\n".join(lines), ((replace, both), (Button(_("No"), cancel_data("r")),)))


def undo_pick(_: Gettext, v: r.UndoPick) -> Out:
    """`/undo 2` where two tables of the season have a #2: one button per table."""
    lines = [_("Several tables of this season have a #{n}. Which one?", n=v.hand_no)]
    rows: list[tuple[Button, ...]] = []
    for i, view in enumerate(v.choices, 1):
        typed = quote(view.text)
        lines.append(f"{i}. {table_title(_, view)} · {what(_, view)} · <i>{typed}</i>")
        rows.append((Button(_("Undo {i}", i=i), undo_data(view.event_id), style=DANGER),))
    rows.append((Button(_("Cancel"), cancel_data()),))
    return Out("\n".join(lines), tuple(rows))
