"""People at the table as chat messages: who took a seat, who left it, new guests, the claim
buttons, "did you mean …?", a rename and a merge (HTML, through the renderer's `_`)."""

from __future__ import annotations

from html import escape

from bot.commands import labels
from bot.commands.callback_data import claim_data, fits, name_data
from bot.i18n import Gettext
from scoring.games import Game
from service import replies as r

#: A button: its label and its callback data.
Label = tuple[str, str]


def table_text(_: Gettext, v: r.TableView) -> tuple[str, list[Label]]:
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
    return "\n".join(lines), claim_rows(_, v)


def head(_: Gettext, v: r.TableView) -> str | None:
    """The first line of /sub's and /leave's replies (None: another event)."""
    if v.event == "sub" and v.replaced:
        return _("{name} takes {old}'s seat.", name=escape(v.who), old=escape(v.replaced))
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


def claim_rows(_: Gettext, v: r.TableView) -> list[Label]:
    """The claim buttons of a table view: one per guest."""
    shown = [*([v.claim] if v.claim is not None else []), *v.claims]
    buttons = [(_("I am {name}", name=c.name), claim_data(c.player_id, c.user_id)) for c in shown]
    return [(label, data) for label, data in buttons if fits(data)]


def name_ask(_: Gettext, v: r.NameAsk) -> tuple[str, list[Label]]:
    """The question, and its two answers as buttons (none when they do not fit)."""
    text = _(
        "“{typed}” is one letter from {guess}, who played here. Did you mean {guess}? Nothing"
        " was changed yet.",
        typed=escape(v.typed),
        guess=escape(v.guess),
    )
    known, new = name_data(v.user_id, v.known), name_data(v.user_id, v.new)
    if known is None or new is None:
        return text + "\n" + _(
            "Write the command again with {guess}, or give the new player a name no player"
            " here has.",
            guess=escape(v.guess),
        ), []
    return text, [(v.guess, known), (_("New player {name}", name=v.typed), new)]


def renamed(_: Gettext, v: r.Renamed) -> str:
    return _(
        "{old} is called {new} now: the same player, their records and balance follow.",
        old=escape(v.old),
        new=escape(v.new),
    )


def merged(_: Gettext, v: r.Merged) -> str:
    return _(
        "{gone} and {kept} are one person: {gone}'s {n} record(s), balances and statistics are"
        " {kept}'s now, and {gone} is gone. /undo still undoes any of them.",
        gone=escape(v.gone),
        kept=escape(v.kept),
        n=v.records,
    )
