"""A record as the chat shows it: a mahjong hand (each win, why each payer pays, the tiles read),
a kong, a 510K hand, a free round or a transfer, with each player's net; a marathon's progress;
and the replies that show one: it was recorded, it was undone (HTML, in the chat's language,
through the renderer's `_`)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from html import escape

from bot.commands import labels
from bot.commands.callback_data import undo_data
from bot.i18n import N_, Gettext
from bot.presentation.numbers import fmt
from bot.presentation.out import DANGER, Button, Out
from bot.presentation.render_free import free_lines, record_title, totals_line
from bot.presentation.render_tiles import reading_line
from scoring import EventKind, Formula, Game, HandValue, Pattern
from service import replies as r
from service.hand_views import FreeView, HandView, K510View, KongView, MahjongView, Payment
from service.names import visible

QUOTE_LIMIT = 80  # characters of a recorded command echoed back

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


NOT_CONCEALED = N_(
    "ℹ️ {name}'s hand was scored as not concealed (门清 not given): if it was concealed, /undo "
    "and write it again with mq."
)


def quote(command: str) -> str:
    """A recorded command as echoed in replies: escaped, neutralised (`visible`), and cut to a
    sensible length."""
    command = visible(command)
    return escape(command if len(command) <= QUOTE_LIMIT else command[: QUOTE_LIMIT - 1] + "…")


def hand_lines(_: Gettext, view: HandView) -> list[str]:
    """The lines describing one recorded hand or kong, with its payments and nets."""
    detail = view.detail
    if isinstance(detail, KongView):
        return kong_lines(_, view, detail)
    if isinstance(detail, FreeView):
        lines = free_lines(_, view, detail, quote(view.text))
        if view.kind == EventKind.PAY:
            return lines
        return [*lines, _("Scores this round: {net}", net=net_text(view.net))]
    if isinstance(detail, MahjongView):
        lines = mahjong_lines(_, view, detail)
    else:
        lines = k510_lines(_, view, detail)
    return [*lines, _("Net this hand: {net}", net=net_text(view.net))]


def net_text(net: Sequence[tuple[str, Fraction | int]]) -> str:
    """`老王 +36 · 小李 -12 · 阿张 -12 · Chen -12`."""
    return " · ".join(f"{escape(name)} {fmt(amount, signed=True)}" for name, amount in net)


def kong_lines(_: Gettext, view: HandView, kong: KongView) -> list[str]:
    return [
        _("🀄 Kong recorded: {kind}", kind=_(labels.KONG[kong.kind]))
        + f" — <i>{quote(view.text)}</i>",
        _("Nobody's points change now: kong points settle when the hand ends."),
    ]


def mahjong_lines(_: Gettext, view: HandView, hand: MahjongView) -> list[str]:
    """The hand, then each winner with the payments for his win, then the kong points."""
    head = _("🀄 Hand #{n}", n=view.hand_no)
    if not hand.wins:
        head += " · " + _("流局 drawn hand")
    lines = [head + f" — <i>{quote(view.text)}</i>"]
    # Each win's payments come together, in the order of the wins, all to its winner.
    by_winner: dict[str, list[Payment]] = {}
    for p in view.payments:
        if p.reason != "kong":
            by_winner.setdefault(p.payee or "?", []).append(p)
    for win, (winner, paid) in zip(hand.wins, by_winner.items(), strict=True):
        lines.append(win_line(_, winner, win.value, unsaid=win.unsaid))
        lines += [reading_line(_, win.tiles)] if win.tiles is not None else []
        lines += [payment_line(_, p) for p in paid]
    lines += [payment_line(_, p) for p in view.payments if p.reason == "kong"]
    return lines


def win_line(_: Gettext, winner: str, value: HandValue, *, unsaid: bool = False) -> str:
    """`• 老王 胡：自摸 · 碰碰胡 · 清一色 · 基数 3 × 4 倍 = 12`; `unsaid`: 门清 was not
    written though it may have been ("not 门清")."""
    pattern = value.pattern + (str(value.groups) if value.pattern is Pattern.QIDUI else "")
    flags = {"qingyise": value.qingyise, "menqing": value.menqing}
    flags["quanqiuren"] = value.quanqiuren
    parts = [_(labels.WIN[value.how]), _(labels.PATTERN[pattern])]
    parts += [_(labels.FLAG[flag]) for flag, given in flags.items() if given]
    parts += [_("not 门清")] if unsaid else []
    if value.formula is not Formula.SMALL_PAO:  # a small hand on a discard: 2 or 4, no unit
        parts.append(_("base {base} × {k} = {unit}", base=value.base, k=value.k, unit=value.unit))
    return _("• {winner} wins: {what}", winner=escape(winner), what=" · ".join(parts))


def why(_: Gettext, p: Payment) -> str:
    """Why `p` is paid, in the words and numbers of the table."""
    if p.kong is not None:
        return _(labels.KONG[p.kong])
    v = p.value
    assert v is not None  # a win's or a sealed player's payment
    n = v.chain
    numbers = {"value": v.value, "unit": v.unit, "n": n, "m": 2**n}
    if p.reason == "sealed":
        formula = v.formula
        family = "each" if formula in EACH_PAYS else "konged" if formula == KONGED else "pao"
        return _(SEALED[family][p.sisuang], **numbers)
    if v.formula is Formula.BIG_CANNON and n > 1:
        return _(CANNON_CHAIN, **numbers | {"m": 2 ** (n - 1)})
    return _(WHY[v.formula], **numbers)


def payment_line(_: Gettext, p: Payment) -> str:
    """`  小李 → 老王 12 · 自摸` (510K: `  老王 +22.5`)."""
    if p.reason == "pay":
        return f"  {escape(p.payer or '?')} → {escape(p.payee or '?')} {fmt(p.amount)}"
    if p.reason == "score":
        name = p.payee if p.payee is not None else p.payer
        amount = p.amount if p.payee is not None else -p.amount
        return f"  {escape(name or '?')} {fmt(amount, signed=True)}"
    payer, payee = escape(p.payer or "?"), escape(p.payee or "?")
    return f"  {payer} → {payee} {fmt(p.amount)} · {why(_, p)}"


def k510_lines(_: Gettext, view: HandView, hand: K510View) -> list[str]:
    names = view.names
    lines = [_("🃏 510K hand #{n}", n=view.hand_no) + f" — <i>{quote(view.text)}</i>"]
    result = hand.result
    if hand.marathon_hands is not None:
        points = points_text(names, hand.card_points)
        lines.append(_("Card points this hand: {points}", points=points))
        if not hand.marathon_over:
            return [*lines, _("Scores come when the marathon ends.")]
        lines.append(_("🏁 The marathon is over after {n} hands.", n=hand.marathon_hands))
    if result is None:
        return lines
    lines.append(_("Card points: {points}", points=points_text(names, result.card_points)))
    if result.team_points is not None:
        sides = teams(names)
        lines.append(
            _(
                "Teams: {a} {pa} · {b} {pb} → {winner} win",
                a=escape(sides[0]),
                pa=fmt(result.team_points[0], signed=True),
                b=escape(sides[1]),
                pb=fmt(result.team_points[1], signed=True),
                winner=escape(sides[result.winner]),
            )
        )
    if result.doubled:
        lines.append(_("Doubled ×2 (the losers took no table points)."))
    if result.bonus:
        lines.append(_("Marathon bonus: the winners get 10 percent more."))
    if result.incomplete:
        lines.append(_("Note: the figures add up to {total}, not 100.", total=hand.reported))
    return lines


def points_text(names: Sequence[str], points: Sequence[int]) -> str:
    """`老王 +60 · 小李 -20 · …`: each seat's card points."""
    return " · ".join(
        f"{escape(n)} {fmt(p, signed=True)}" for n, p in zip(names, points, strict=True)
    )


def teams(names: Sequence[str]) -> tuple[str, str]:
    return f"{names[0]}+{names[2]}", f"{names[1]}+{names[3]}"


def progress_line(_: Gettext, p: r.Progress) -> str:
    sides = " · ".join(
        _(
            "{side} {points}/{target} ({left} to go)",
            side=escape(side),
            points=points,
            target=p.target,
            left=max(p.target - points, 0),
        )
        for side, points in p.sides
    )
    line = _("🏃 Marathon after {n} hand(s): {sides}", n=p.hands, sides=sides)
    for name, old in p.took_over:
        said = (
            N_("({name} plays on for {old}: the team keeps its points.)")
            if len(p.sides) == 2
            else N_("({name} plays on in {old}'s seat: the seat keeps its points.)")
        )
        line += " " + _(said, name=escape(name), old=escape(old))
    if p.newcomers:
        line += " " + _("({names} joined the marathon at 0.)", names=escape(", ".join(p.newcomers)))
    return line


def recorded(_: Gettext, reply: r.Recorded) -> Out:
    lines = hand_lines(_, reply.view)
    if reply.progress is not None:
        lines.append(progress_line(_, reply.progress))
    if reply.dealer is not None:
        lines.append(_("Next dealer: {name}", name=escape(reply.dealer)))
    if reply.totals:
        lines.append(totals_line(_, reply.totals))
    for name in reply.not_concealed:
        lines.append(_(NOT_CONCEALED, name=escape(name)))
    for name in reply.qqr_self_drawn:
        lines.append(
            _(
                "ℹ️ {name}'s 全求人 was self-drawn: scored as 碰碰胡 自摸, without 全求人's ×2"
                " (it doubles only a win on another player's tile).",
                name=escape(name),
            )
        )
    for name, n in reply.chain_unrecorded:
        lines.append(
            _(
                "ℹ️ {n} kong(s) of {name}'s chain were never recorded with /gang: their kong"
                " points are not in this hand. To have them paid: /undo, record them with"
                " /gang, then the hand again.",
                name=escape(name),
                n=n,
            )
        )
    if reply.repeated:
        lines.append(_("(This was recorded already; nothing changed.)"))
    if reply.replaced is not None:
        lines.append(_("It replaces #{n}, undone with it.", n=reply.replaced))
    if reply.archived_season is not None:
        lines.append(
            _(
                "It belongs to season {n}, archived since: see it with /standings {n}.",
                n=reply.archived_season,
            )
        )
    buttons = ((Button(_("Undo"), undo_data(reply.view.event_id), style=DANGER),),)
    return Out("\n".join(lines), () if reply.view.undone else buttons)


def undone(_: Gettext, reply: r.Undone) -> Out:
    view = reply.view
    hand = view.kind == EventKind.HAND
    what = _("hand #{n}", n=view.hand_no) if hand else _("the kong")
    if view.kind == EventKind.PAY or view.game == Game.FREE:
        what = record_title(_, view)
    lines = [_("↩️ Undone: {what}", what=what) + f" — <i>{quote(view.text)}</i>"]
    net = tuple((name, -amount) for name, amount in view.net)
    if net:
        lines.append(_("Balances change by: {net}", net=net_text(net)))
    else:
        lines.append(_("No points change: the kong was not settled yet."))
    if reply.dealer is not None:
        lines.append(_("Dealer: {name}", name=escape(reply.dealer)))
    return Out("\n".join(lines))
