"""/stats, /chart and /export as chat messages: the stats text, the picture and the file's
caption (HTML, in the chat's language, through the renderer's `_`)."""

from __future__ import annotations

from html import escape, unescape

from bot.commands.timezones import zone_label
from bot.i18n import Gettext
from bot.presentation.card_words import HANDS_COUNTED
from bot.presentation.numbers import fmt
from bot.presentation.out import Out
from bot.presentation.render_free import free_stats, unit_title
from service.replies import ChartData, ExportData, HeadToHead, K510Line, MahjongLine, StatsView

PAIRS_SHOWN = 15  # head-to-head lines, largest first (a message holds 4096 characters)


def stats_text(_: Gettext, view: StatsView) -> str:
    """Per player: mahjong hands, wins, self-draws, deal-ins, biggest and average win, then who
    paid whom; 510K hands, first out and wins."""
    title = (
        _("Statistics, season {n} (archived)", n=view.season)
        if view.archived
        else _("Statistics, season {n}", n=view.season)
    )
    lines = [f"<b>{title}</b>"]
    if view.empty:
        lines.append(_("No hands recorded yet."))
    if view.mahjong_hands or view.mahjong:  # hands, or only transfers at a mahjong table
        lines.append("")
        head = _("🀄 Mahjong · {n} hand(s)", n=view.mahjong_hands)
        lines.append(f"<b>{head}</b>")
        for line in view.mahjong:
            lines += _mahjong(_, line)
        pairs = [p for p in view.head_to_head if p.net]
        if pairs:
            lines.append(_("Who paid whom (net):"))
            lines += [_pair(p) for p in pairs[:PAIRS_SHOWN]]
            if len(pairs) > PAIRS_SHOWN:
                lines.append("  " + _("… and {n} more pair(s).", n=len(pairs) - PAIRS_SHOWN))
    if view.k510_hands or view.k510:
        lines.append("")
        head = _("🃏 510K · {n} hand(s)", n=view.k510_hands)
        lines.append(f"<b>{head}</b>")
        for k in view.k510:
            lines += _k510(_, k)
    lines += free_stats(_, view.free)
    if view.undone:
        lines.append("")
        lines.append(_("{n} undone hand(s) left out.", n=view.undone))
    return "\n".join(lines)


def _mahjong(_: Gettext, line: MahjongLine) -> list[str]:
    out = [
        f"{escape(line.name)} {fmt(line.net, signed=True)}",
        "  "
        + _(
            "hands {hands} · wins {wins} (self-drawn {self_draws}) · deal-ins {deal_ins}",
            hands=line.hands,
            wins=line.wins,
            self_draws=line.self_draws,
            deal_ins=line.deal_ins,
        ),
    ]
    if line.biggest is not None and line.average is not None:
        out.append(
            "  "
            + _(
                "biggest win {biggest} · average win {average}",
                biggest=fmt(line.biggest, signed=True),
                average=fmt(line.average, signed=True),
            )
        )
    return out


def _pair(p: HeadToHead) -> str:
    both = f" ({fmt(p.paid)} − {fmt(p.back)})" if p.back else ""
    return f"  {escape(p.payer)} → {escape(p.payee)} {fmt(p.net)}{both}"


def _k510(_: Gettext, line: K510Line) -> list[str]:
    return [
        f"{escape(line.name)} {fmt(line.net, signed=True)}",
        "  "
        + _(
            "hands {hands} · first out {first} · wins {wins} of {results}",
            hands=line.hands,
            first=line.first_out,
            wins=line.wins,
            results=line.results,
        ),
    ]


def chart_title(_: Gettext, data: ChartData) -> str:
    """The title drawn in the picture (plain text, not HTML)."""
    if data.archived:
        return unescape(_("Balances, season {n} (archived)", n=data.season))
    return unescape(_("Balances, season {n}", n=data.season))


def chart_caption(_: Gettext, data: ChartData) -> str:
    """The photo's caption (HTML); for a season with no hands, the whole answer."""
    if not data.series:
        return _("No hands recorded yet.")
    head = _("Balances over season {n}, {hands} hand(s).", n=data.season, hands=data.hands)
    return "📈 " + head + "\n" + _(HANDS_COUNTED)


def chart_texts(_: Gettext, data: ChartData) -> tuple[str, dict[str, str], str, str]:
    """The picture's words, plain text: title, the games' titles, the x axis, "no hands"."""
    return (
        chart_title(_, data),
        {s.unit: unescape(unit_title(_, s.unit)) for s in data.series},
        unescape(_("hands played")),
        unescape(_("No hands recorded yet.")),
    )


def export_caption(_: Gettext, data: ExportData) -> str:
    """The CSV document's caption (HTML)."""
    return (
        "📄 "
        + _(
            "The ledger of season {n}: {rows} payment(s) of {hands} hand(s), times in {zone}; "
            "undone hands are marked, they do not count.",
            n=data.season,
            rows=data.count,
            hands=data.hands,
            zone=escape(zone_label(data.tz)),
        )
        + "\n"
        + _(HANDS_COUNTED)
    )


def stats(_: Gettext, v: StatsView) -> Out:
    return Out(stats_text(_, v))


def chart(_: Gettext, data: ChartData) -> Out:
    """/chart in words: the picture's caption (the picture is drawn apart: `chart_process`)."""
    return Out(chart_caption(_, data))


def export(_: Gettext, data: ExportData) -> Out:
    """/export in words: the files' caption (the files are written apart: `export_csv`)."""
    return Out(export_caption(_, data))
