"""/me, /rating and the cards' captions as chat messages (HTML, in the chat's language, through
the renderer's `_`)."""

from __future__ import annotations

from html import escape

from bot.commands.timezones import local
from bot.i18n import N_, Gettext
from bot.presentation.card_words import HANDS_COUNTED, WHO_PAYS, game_title, in_money, notes
from bot.presentation.numbers import fmt, fmt_money
from bot.presentation.out import Out
from bot.presentation.render_free import unit_title
from bot.presentation.render_hands import quote
from bot.presentation.render_money import game_name
from scoring.games import Unit
from service.replies import (
    Card,
    MeCounts,
    MeElsewhere,
    MeGame,
    MeGroup,
    MeView,
    MineGroup,
    MineView,
    RatingGame,
    RatingView,
)

ICON = {Unit.MAHJONG: "🀄", Unit.K510: "🃏", Unit.FREE: "🎲"}
UNNAMED = N_("a group (its name shows after its next record)")
ME_PRIVATE = N_("Your record is sent in our private chat, never in a group:")
ME_OPEN = N_("Show my record")


def me_text(_: Gettext, view: MeView) -> str:
    """The member's record, group by group: balances this season and all time, the counters,
    whom they play with most, head-to-head."""
    title = _("👤 Your record in every group you play in")
    lines = [f"<b>{title}</b>"]
    if not view.groups:
        lines.append(_(NO_GROUP))
    for group in view.groups:
        lines += ["", *_group(_, group)]
    lines += ["", "<i>" + _(ONLY_YOU if view.in_group else ONLY_YOU_PRIVATE) + "</i>"]
    return "\n".join(lines)


ONLY_YOU = N_("Only you see this message.")
ONLY_YOU_PRIVATE = N_("Only you see this: it is our private chat.")


def mine_text(_: Gettext, view: MineView) -> str:
    """/mine: in each group, the sender's balance per game this season, their last hands and
    their lines of /settle money."""
    lines: list[str] = []
    if view.in_group and view.groups:
        title = _(
            "👤 My account · {name}, season {n}",
            name=escape(view.groups[0].name),
            n=view.groups[0].season,
        )
        lines += [f"<b>{title}</b>", *_account(_, view.groups[0])]
    elif view.in_group:
        lines.append(
            _(
                "You have no player here yet: take a seat with /join, or claim a guest with "
                "/iam; your account shows here from then on."
            )
        )
    else:
        lines.append("<b>" + _("👤 My account in every group I play in") + "</b>")
        if not view.groups:
            lines.append(_(NO_GROUP))
        for g in view.groups:
            title = escape(g.title) if g.title else _(UNNAMED)
            head = _("as {name}, season {n}", name=escape(g.name), n=g.season)
            lines += ["", f"<b>{title}</b> · {head}", *_account(_, g)]
    lines += ["", "<i>" + _(ONLY_YOU if view.in_group else ONLY_YOU_PRIVATE) + "</i>"]
    return "\n".join(lines)


NO_GROUP = N_(
    "No group has a player linked to you yet. Sit down at a table with /join, or "
    "claim a guest with the “I am” button; your record shows here from then on."
)


def _account(_: Gettext, g: MineGroup) -> list[str]:
    if not g.balances:
        return [_("No hands of yours this season yet.")]
    shown = " · ".join(
        f"{ICON[Unit.of(unit)]} {game_name(_, unit)} {fmt(net, signed=True)}"
        for unit, net in g.balances
    )
    lines = [_("Balance: {games}", games=shown)]
    if g.hands:
        lines.append(_("My last hands:"))
    for hand in g.hands:
        number = f"#{hand.hand_no} " if hand.hand_no is not None else ""
        when = local(hand.at, g.tz).strftime("%m-%d %H:%M")
        net = fmt(hand.net, signed=True)
        lines.append(f"  {number}{when} <i>{quote(hand.text)}</i> <b>{net}</b>")
    if not g.counted:
        lines.append(_("At /settle money: no game has a stake yet (/set stake)."))
        return lines
    lines.append(_("At /settle money:"))
    for name, amount in g.pays:
        lines.append("  " + _("I pay {name} {money}", name=escape(name), money=fmt_money(amount)))
    for name, amount in g.gets:
        lines.append("  " + _("{name} pays me {money}", name=escape(name), money=fmt_money(amount)))
    if not g.pays and not g.gets:
        lines.append("  " + _("I am square: nothing to pay or get."))
    return lines


def _group(_: Gettext, g: MeGroup) -> list[str]:
    title = escape(g.title) if g.title else _(UNNAMED)
    lines = [f"<b>{title}</b> · " + _("as {name}, season {n}", name=escape(g.name), n=g.season)]
    for game in g.games:
        lines += _game(_, game)
    if g.mates:
        mates = " · ".join(_("{name} ({n} hands)", name=escape(name), n=n) for name, n in g.mates)
        lines.append(_("Plays most with: {mates}", mates=mates))
    if g.head_to_head:
        lines.append(_("Head-to-head, mahjong, all time:"))
        for name, paid, got in g.head_to_head:
            lines.append(
                "  "
                + _(
                    "{name}: you paid {paid}, got {got} ({net})",
                    name=escape(name),
                    paid=fmt(paid),
                    got=fmt(got),
                    net=fmt(got - paid, signed=True),
                )
            )
    return lines


def _game(_: Gettext, game: MeGame) -> list[str]:
    kind = Unit.of(game.unit)
    head = _(
        "{icon} {game}: this season {season} · all time {ever}",
        icon=ICON[kind],
        game=unit_title(_, game.unit),
        season=fmt(game.season.net, signed=True),
        ever=fmt(game.all_time.net, signed=True),
    )
    return [head, "  " + _counts(_, kind, game.all_time)]


def _counts(_: Gettext, kind: Unit, c: MeCounts) -> str:
    if kind is Unit.MAHJONG:
        text = _(
            "all time: {hands} hands · {wins} wins ({self_draws} self-drawn) · {deal_ins} deal-ins",
            hands=c.hands,
            wins=c.wins,
            self_draws=c.self_draws,
            deal_ins=c.deal_ins,
        )
    elif kind is Unit.K510:
        text = _(
            "all time: {hands} hands · first out {first} · {wins} won of {results}",
            hands=c.hands,
            first=c.first_out,
            wins=c.wins,
            results=c.results,
        )
    else:
        text = _("all time: {hands} rounds · {wins} won", hands=c.hands, wins=c.wins)
    if c.biggest is not None:
        text += " · " + _("biggest {amount}", amount=fmt(c.biggest, signed=True))
    return text


def rating_text(_: Gettext, view: RatingView) -> str:
    """Each game's ratings, best first, and its last sittings."""
    title = _("📊 Skill rating (openskill: μ − 3σ)")
    lines = [f"<b>{title}</b>"]
    if not view.games:
        lines.append(_("No sitting has been rated yet: the rating follows each sitting's result."))
    for game in view.games:
        lines += ["", *_rated(_, game, view.tz)]
    lines += ["", "<i>" + _("What it means, and what it is not: /rules.") + "</i>"]
    return "\n".join(lines)


def _rated(_: Gettext, game: RatingGame, tz: str) -> list[str]:
    lines = [f"<b>{ICON[Unit.of(game.unit)]} {unit_title(_, game.unit)}</b>"]
    for i, line in enumerate(game.lines, 1):
        change = f" ({line.change:+.1f})" if line.change is not None else ""
        lines.append(
            f"{i}. {escape(line.name)} <b>{line.ordinal:.1f}</b> · "
            + _("{n} sitting(s)", n=line.sittings)
            + change
        )
    if game.recent:
        lines.append(_("Last sittings:"))
    for sitting in game.recent:
        when = local(sitting.at, tz).strftime("%m-%d %H:%M")
        places = " · ".join(
            f"{place}. {escape(name)} {change:+.1f}" for name, place, change in sitting.places
        )
        lines.append(f"  {when} · " + _("{n} hand(s)", n=sitting.hands) + f": {places}")
    return lines


CAPTION_LIMIT = 1024  # characters of a photo's caption, as Telegram takes it


def card_caption(_: Gettext, card: Card) -> str:
    """The card's caption (HTML): the night's payments as text a member can copy, in money
    as /settle money counts them (else in points per game)."""
    hands = sum(n for _unit, n in card.hands)
    if card.season is not None:
        head = "🏁 " + _("Season {n}'s card: {hands} hand(s).", n=card.season, hands=hands)
    else:
        start, end = local(card.start, card.tz), local(card.end, card.tz)
        head = "🖼 " + _(
            "The night's card: {start}–{end}, {hands} hand(s). Forward it!",
            start=start.strftime("%m-%d %H:%M"),
            end=end.strftime("%H:%M"),
            hands=hands,
        )
    lines = [head, _(HANDS_COUNTED)]
    if card.plan:
        title = _(WHO_PAYS)
        if card.games:
            title += " · " + escape(in_money(_, card))
        lines.append(title)
    for section, plan in card.plan:
        if not card.games:
            lines.append(escape(game_title(_, section)) + ":")
        for payer, payee, amount in plan:
            shown = fmt_money(amount) if card.games else fmt(amount)
            lines.append(f"{escape(payer)} → {escape(payee)} {shown}")
    lines += [escape(note) for note in notes(_, card)]
    return _fit(lines)


def _fit(lines: list[str]) -> str:
    """The lines that fit in a caption (HTML tags aside, which there are none of), the cut
    shown by …."""
    text = "\n".join(lines)
    while len(text) > CAPTION_LIMIT - 2 and len(lines) > 1:
        lines = lines[:-1]
        text = "\n".join(lines) + "\n…"
    return text


def me(_: Gettext, v: MeView) -> Out:
    return Out(me_text(_, v))


def me_elsewhere(_: Gettext, v: MeElsewhere) -> Out:
    return Out(_(ME_PRIVATE))


def mine(_: Gettext, v: MineView) -> Out:
    return Out(mine_text(_, v))


def rating(_: Gettext, v: RatingView) -> Out:
    return Out(rating_text(_, v))


def card(_: Gettext, v: Card) -> Out:
    return Out(card_caption(_, v))
