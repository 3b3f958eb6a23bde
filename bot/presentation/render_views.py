"""What everyone may look at, as chat messages: /standings, /history, /seasons, and the
seasons' turn: /reset's question and its answer (HTML, through the renderer's `_`)."""

from __future__ import annotations

from html import escape

from bot.commands.callback_data import cancel_data, mine_data, reset_data
from bot.commands.timezones import local, zone_label
from bot.i18n import N_, Gettext
from bot.presentation.numbers import fmt, shown_apart
from bot.presentation.out import SUCCESS, Button, Out
from bot.presentation.render_edits import version_lines
from bot.presentation.render_free import table_title, unit_title
from bot.presentation.render_hands import payment_line, progress_line, quote
from bot.presentation.render_tiles import history_lines
from service import replies as r


def standings(_: Gettext, v: r.StandingsView) -> Out:
    title = (
        _("Standings of season {n} (archived):", n=v.season)
        if v.archived
        else _("Standings of season {n}:", n=v.season)
    )
    lines = [f"<b>{title}</b>"]
    if not v.sections:
        lines.append(_("No hands recorded yet."))
    for unit, rows in v.sections:
        lines.append(_("{unit}:", unit=unit_title(_, unit)))
        lines += [
            f"{i}. {escape(name)} {fmt(amount, signed=True)}"
            for i, (name, amount) in enumerate(rows, 1)
        ]
    if any(shown_apart(amount for _n, amount in rows) for _u, rows in v.sections):
        lines.append(_(NOT_ADDING_UP))
    if v.progress is not None:
        lines.append(progress_line(_, v.progress))
    buttons = () if v.archived else ((Button(_(MY_ACCOUNT), mine_data()),),)
    return Out("\n".join(lines), buttons)


#: Under /standings: the presser's own account, shown to them alone.
MY_ACCOUNT = N_("👤 My account")


NOT_ADDING_UP = N_(
    "(Shown to two decimals, so a game's lines may not add up exactly; the exact values are kept.)"
)


def history(_: Gettext, v: r.HistoryView) -> Out:
    title = _("Last hands, season {n}", n=v.season)
    zone = _("(times: {zone})", zone=escape(zone_label(v.tz)))
    lines = [f"<b>{title}</b> {zone}"]
    if not v.hands:
        lines.append(_("No hands recorded yet."))
    several = len({view.table_id for view in v.hands}) > 1  # each table numbers its own
    table: int | None = -1  # no table id is negative: the first hand shows its table
    for view in v.hands:
        if several and view.table_id != table:
            table = view.table_id
            lines.append(f"— {table_title(_, view)} —")
        mark = " " + _("[undone]") if view.undone else ""
        when = local(view.at, v.tz).strftime("%m-%d %H:%M")
        edited = " ✎" if view.edited else ""
        lines.append(f"#{view.hand_no}{edited} {when} <i>{quote(view.text)}</i>{mark}")
        lines += [payment_line(_, p) for p in view.payments] or ["  " + _("no payments")]
        lines += history_lines(_, view)
    lines += version_lines(_, v.versions, v.tz)
    return Out("\n".join(lines))


def seasons(_: Gettext, v: r.SeasonsView) -> Out:
    title = _("Seasons")
    lines = [f"<b>{title}</b>"]
    if not v.seasons:
        lines.append(_("No seasons yet."))
    for s in v.seasons:
        end = s.archived_at.strftime("%Y-%m-%d") if s.archived_at else _("current")
        lines.append(
            _(
                "Season {n}: {start} – {end}, {hands} hands",
                n=s.number,
                start=s.opened_at.strftime("%Y-%m-%d"),
                end=end,
                hands=s.hands,
            )
        )
    lines.append(_("Show one with /standings <season>."))
    return Out("\n".join(lines))


def reset_ask(_: Gettext, v: r.ResetAsk) -> Out:
    text = _(
        "Archive season {n} and start season {m}? Everyone starts again from 0; "
        "season {n} stays viewable with /standings {n}.",
        n=v.season,
        m=v.season + 1,
    )
    buttons = (
        (
            Button(_("Confirm"), reset_data(v.season_id), style=SUCCESS),
            Button(_("Cancel"), cancel_data()),
        ),
    )
    return Out(text, buttons)


def reset_done(_: Gettext, v: r.ResetDone) -> Out:
    text = _(
        "Season {old} archived. Season {new} begins: everyone starts from 0. "
        "See the old one with /standings {old}.",
        old=v.archived,
        new=v.new,
    )
    if v.last_hand is not None:
        text += "\n" + _(
            "This table's hands up to #{n} are in season {old}; in season {new} they count"
            " from #1 again.",
            n=v.last_hand,
            old=v.archived,
            new=v.new,
        )
    return Out(text)
