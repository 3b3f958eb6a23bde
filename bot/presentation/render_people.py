"""The table and the people at it as chat messages: a table's seats and what just happened
(who took a seat, who left it, new guests, the claim buttons), /new over an open table, "did
you mean …?", a claim, a link, a rename and a merge (HTML, through the renderer's `_`)."""

from __future__ import annotations

from html import escape

from bot.commands import labels
from bot.commands.callback_data import cancel_data, claim_data, fits, name_data, new_data
from bot.i18n import N_, Gettext
from bot.presentation.out import SUCCESS, Button, Out
from scoring.games import Game
from service import replies as r


def table_view(_: Gettext, v: r.TableView) -> Out:
    """A table's game, options and seats (the dealer marked), what just happened, and the
    buttons that claim its guests."""
    game = _(labels.GAME[v.game])
    if v.name:
        game += f" · {escape(v.name)}"
    if v.marathon:
        game += " · " + _("marathon to 500")
    option = "sisuang" if v.game == Game.MAHJONG else "zerosum"
    shown = getattr(v, option) and v.game != Game.FREE  # a free table has no options
    options = [_(labels.SETTING[option])] if shown else []
    first = (
        head(_, v)
        or {
            "opened": _("New table: {game}.", game=game),
            "joined": _("{name} sits down.", name=escape(v.who)),
            "seated": _("Seats set: {game}.", game=game),
            "players": _("Table: {game}.", game=game),
            "dealer": _("{name} deals.", name=escape(v.who)),
        }[v.event]
    )
    if options:
        first += " " + _("Options: {options}.", options=", ".join(options))
    lines = [first]
    for i, name in enumerate(v.seats):
        mark = " 🀄" + _("dealer") if name is not None and name == v.dealer else ""
        lines.append(f"{i + 1}. {escape(name) if name else '—'}{mark}")
    if v.game == Game.K510:
        lines.append(_("Teams: seats 1+3 vs 2+4."))
    if v.left:
        lines.append(_("No seat at this table for: {names}.", names=escape(", ".join(v.left))))
    free = sum(1 for s in v.seats if s is None)
    if free:
        lines.append(_("{n} seat(s) free: /join, or /join <guest name>.", n=free))
    lines += extra_lines(_, v)
    return Out("\n".join(lines), tuple((button,) for button in claim_buttons(_, v)))


MARATHON_SUB = N_(
    "In the marathon {name} plays on with the seat's points; at the end its score is shared "
    "between {old}, {name} and anyone else who sat in it, by the hands each played."
)


def head(_: Gettext, v: r.TableView) -> str | None:
    """The first line of /sub's and /leave's replies (None: another event)."""
    if v.event == "sub" and v.replaced:
        line = _("{name} takes {old}'s seat.", name=escape(v.who), old=escape(v.replaced))
        if v.carries:
            line += "\n" + _(MARATHON_SUB, name=escape(v.who), old=escape(v.replaced))
        return line
    if v.event == "sub":
        return _("{name} takes the free seat.", name=escape(v.who))
    if v.event == "left":
        return _(
            "{name} leaves the table: the seat is free until someone takes it (/join, or /sub"
            " <seat> <name>).",
            name=escape(v.who),
        )
    return None


def extra_lines(_: Gettext, v: r.TableView) -> list[str]:
    """What follows the seats: the new guests, and who may claim whom."""
    lines = []
    if v.new:
        lines.append(
            _(
                "🆕 New player(s): {names}. A name typed differently makes another new player:"
                " /rename fixes a name, /merge joins two players who are one person.",
                names=escape(", ".join(v.new)),
            )
        )
    if v.claims:
        lines.append(
            _(
                "Guests who play here with Telegram: press your name (or /iam <name>), then"
                " 我/me is you."
            )
        )
    return lines


def claim_buttons(_: Gettext, v: r.TableView) -> list[Button]:
    """The claim buttons of a table view: one per guest."""
    shown = [*([v.claim] if v.claim is not None else []), *v.claims]
    buttons = [
        Button(_("I am {name}", name=c.name), claim_data(c.player_id, c.user_id)) for c in shown
    ]
    return [button for button in buttons if fits(button.data)]


def name_ask(_: Gettext, v: r.NameAsk) -> Out:
    """The question, and its two answers as buttons (none when they do not fit)."""
    text = _(
        "“{typed}” looks like a typo of {guess}, who played here. Did you mean {guess}?"
        " Nothing was changed yet.",
        typed=escape(v.typed),
        guess=escape(v.guess),
    )
    known, new = name_data(v.user_id, v.known), name_data(v.user_id, v.new)
    if known is None or new is None:
        again = _(
            "Write the command again with {guess}, or give the new player a name no player"
            " here has.",
            guess=escape(v.guess),
        )
        return Out(text + "\n" + again)
    answers = (Button(v.guess, known), Button(_("New player {name}", name=v.typed), new))
    return Out(text, (answers,))


def renamed(_: Gettext, v: r.Renamed) -> Out:
    return Out(
        _(
            "{old} is called {new} now: the same player, their records and balance follow.",
            old=escape(v.old),
            new=escape(v.new),
        )
    )


def merged(_: Gettext, v: r.Merged) -> Out:
    return Out(
        _(
            "{gone} and {kept} are one person: {gone}'s {n} record(s), balances and statistics"
            " are {kept}'s now, and {gone} is gone. /undo still undoes any of them.",
            gone=escape(v.gone),
            kept=escape(v.kept),
            n=v.records,
        )
    )


def claimed(_: Gettext, v: r.Claimed) -> Out:
    if v.member.casefold() == v.name.casefold():  # the member's Telegram name is the guest's
        text = _(
            "You are {name} here now: {name}'s seat and balance are yours, and 我/me is you. "
            "An admin can undo it with /unlink {name}.",
            name=escape(v.name),
        )
        return Out(text)
    text = _(
        "{member} is {name} now: {name}'s seat and balance are theirs. "
        "An admin can undo it with /unlink {name}.",
        member=escape(v.member),
        name=escape(v.name),
    )
    return Out(text)


def unlinked(_: Gettext, v: r.Unlinked) -> Out:
    return Out(_("{name} is a guest again, linked to nobody.", name=escape(v.name)))


def linked(_: Gettext, v: r.Linked) -> Out:
    return Out(
        _("{guest} is now linked to @{user}.", guest=escape(v.guest), user=escape(v.username))
    )


def new_ask(_: Gettext, v: r.NewAsk) -> Out:
    game = _(labels.GAME[v.request.game.value])
    lines = [
        _(
            "Replace the open table ({old}: {names}) with a new one ({game})?",
            old=_(labels.GAME[v.game]),
            names=escape(", ".join(v.seated)),
            game=game,
        )
    ]
    if v.kongs:
        lines.append(_("{n} kong(s) of the hand being played are dropped unpaid.", n=v.kongs))
    if v.marathon:
        lines.append(_("The running marathon's totals are dropped."))
    left = v.seated[len(v.kept) :]
    if left:
        lines.append(
            _(
                "{names} keep their seats; no seat for {left}.",
                names=escape(", ".join(v.kept)),
                left=escape(", ".join(left)),
            )
        )
    else:
        lines.append(_("Everyone keeps their seat."))
    lines.append(_("Typed: /new … confirm."))
    data = new_data(v.replaces, v.request)
    confirm = (Button(_("Confirm"), data, style=SUCCESS),) if fits(data) else ()
    buttons = ((*confirm, Button(_("Cancel"), cancel_data())),)
    return Out("\n".join(lines), buttons)
