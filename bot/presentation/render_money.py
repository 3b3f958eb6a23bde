"""Settle-up as chat messages: /settle (per game, in points and money), /settle money (one list
across the games), the reply to /set stake, and a game as a player names it (HTML, through the
renderer's `_`)."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from html import escape

from bot.commands.callback_data import card_data, reset_data
from bot.i18n import N_, Gettext
from bot.presentation.card_words import POINTS_ROUNDED
from bot.presentation.markup import COPY_TEXT_LIMIT, MAX_BUTTONS
from bot.presentation.numbers import fmt, fmt_money, fmt_stake, rounded
from bot.presentation.out import SUCCESS, Button, Out
from bot.presentation.render_free import unit_title
from scoring.games import Unit, free_name
from service.replies import MoneyView, SettleView, StakeSet

GAME_NAMES = {Unit.MAHJONG: N_("mahjong"), Unit.K510: "510K", Unit.FREE: N_("free scoring")}
SQUARED = N_(
    "(510K scores are not zero-sum: each hand is squared against the average of the players "
    "at it, which is what zerosum would have recorded.)"
)


def game_name(_: Gettext, unit: str) -> str:
    """`mahjong`, `510K`, `斗地主` (a free game by its name), `free scoring`."""
    name = free_name(unit)
    return escape(name) if name else _(GAME_NAMES[Unit.of(unit)])


def stake_word(_: Gettext, unit: str) -> str:
    """The game as /set stake takes it: 麻将 or mahjong, 510K, free, the free game's name."""
    if Unit.of(unit) is Unit.FREE:
        return escape(free_name(unit)) or Unit.FREE.value
    return game_name(_, unit)


def _stakes(_: Gettext, stakes: Sequence[tuple[str, Fraction]]) -> str:
    return " · ".join(f"{game_name(_, unit)} {fmt_stake(stake)}" for unit, stake in stakes)


def settle_text(_: Gettext, v: SettleView) -> str:
    """Per game: the fewest transfers in points, with the money at the game's stake."""
    stakes = dict(v.stakes)
    title = _("To square season {n}:", n=v.season)
    lines = [f"<b>{title}</b>"]
    if not any(plan for _unit, plan in v.sections):
        lines.append(_("Everyone is square."))
    for unit, plan in v.sections:
        if not plan:
            continue
        lines.append(_("{unit}:", unit=unit_title(_, unit)))
        stake = stakes.get(unit)
        for payer, payee, amount in plan:
            line = f"{escape(payer)} → {escape(payee)} {fmt(amount)}"
            if stake:
                line += " · " + _("{money} in money", money=fmt_money(amount * stake))
            lines.append(line)
        if unit in v.squared:
            lines.append(_(SQUARED))
    if any(rounded(amount) != amount for _u, plan in v.sections for *_n, amount in plan):
        lines.append(_(POINTS_ROUNDED))
    shown = [unit for unit, plan in v.sections if plan]
    if any(unit in stakes for unit in shown):
        if all(stakes.get(unit) == v.stake for unit in shown):
            lines.append(_("Stake: {stake} per point.", stake=fmt_stake(v.stake or 0)))
        else:
            counted = [(unit, stakes[unit]) for unit in shown if unit in stakes]
            lines.append(_("Stake per point: {stakes}.", stakes=_stakes(_, counted)))
            none = " · ".join(game_name(_, unit) for unit in shown if unit not in stakes)
            if none:
                lines.append(_("No stake: {games}.", games=none))
        if len(shown) > 1:
            lines.append(_("All games in one money list: /settle money"))
    return "\n".join(lines)


def money_text(_: Gettext, v: MoneyView) -> str:
    """Across the games: each game's points times its stake, per player, squared."""
    title = _("Money to square season {n}:", n=v.season)
    lines = [f"<b>{title}</b>"]
    if not v.games:
        lines.append(
            _(
                "No game has a stake yet: /set stake 0.5 (every game) or /set stake mahjong 1 "
                "(one game)."
            )
        )
    elif not v.transfers:
        lines.append(_("Everyone is square."))
    lines += [f"{escape(a)} → {escape(b)} {fmt_money(amount)}" for a, b, amount in v.transfers]
    return "\n".join(lines + money_notes(_, v))


def money_notes(_: Gettext, v: MoneyView) -> list[str]:
    """What follows the payments of /settle money: the games counted, left out, rounding."""
    lines: list[str] = []
    if v.games:
        counted = " · ".join(
            _("{game} at {stake} per point", game=game_name(_, unit), stake=fmt_stake(stake))
            for unit, stake in v.games
        )
        lines.append(_("Counted: {games}.", games=counted))
    if v.left_out and v.games:
        lines.append(
            _(
                "Left out, no stake: {games}. Give one with /set stake {word} 0.5.",
                games=" · ".join(game_name(_, unit) for unit in v.left_out),
                word=stake_word(_, v.left_out[0]),
            )
        )
    if v.rounded:
        lines.append(_("(Each player's money is rounded to the cent, so that it adds up.)"))
    return lines


def stake_text(_: Gettext, v: StakeSet) -> str:
    """The reply to /set stake: the stake now, and how it combines with the others."""
    if v.unit is None:
        if v.stake:
            lines = [
                _(
                    "Stake: {stake} per point, for every game without a stake of its own.",
                    stake=fmt_stake(v.stake),
                )
            ]
        elif v.own:
            lines = [_("No stake for the chat: only games with a stake of their own count.")]
        else:
            lines = [_("No stake: /settle shows points only.")]
        if v.own:
            lines.append(_("Games with a stake of their own: {stakes}.", stakes=_stakes(_, v.own)))
        return "\n".join(lines)
    game = game_name(_, v.unit)
    if v.stake:
        return _("Stake for {game}: {stake} per point.", game=game, stake=fmt_stake(v.stake))
    if v.stake == 0:
        return _(
            "Stake for {game}: 0, it plays for nothing (/settle money leaves it out).", game=game
        )
    if v.chat_stake:
        return _(
            "Stake for {game}: the chat's, {stake} per point (none of its own now).",
            game=game,
            stake=fmt_stake(v.chat_stake),
        )
    return _("Stake for {game}: none now (/settle money leaves it out).", game=game)


def settle(_: Gettext, v: SettleView) -> Out:
    """The settle-up, a copy button per payment; under the season in play's, the night's card
    offered (own row)."""
    buttons = archive_buttons(_, v.season, v.archive)
    if any(plan for _unit, plan in v.sections):
        buttons += ((Button(_("🖼 The night's card"), card_data()),),)
    stakes = dict(v.stakes)  # a game with a stake is paid in money: that is what is copied
    payments = [
        (payer, payee, fmt_money(amount * stakes[unit]) if stakes.get(unit) else fmt(amount))
        for unit, plan in v.sections
        for payer, payee, amount in plan
    ]
    return Out(settle_text(_, v), copy_buttons(payments, len(buttons)) + buttons)


def money(_: Gettext, v: MoneyView) -> Out:
    """The money list, a copy button per payment, and an admin's archive button."""
    buttons = archive_buttons(_, v.season, v.archive)
    payments = [(payer, payee, fmt_money(amount)) for payer, payee, amount in v.transfers]
    return Out(money_text(_, v), copy_buttons(payments, len(buttons)) + buttons)


def copy_buttons(
    payments: Sequence[tuple[str, str, str]], taken: int
) -> tuple[tuple[Button, ...], ...]:
    """A button per payment that copies it ("老陈 → 老王 36", for a banking app's note), one a
    row, as many as Telegram's keyboard takes beside the `taken` others; the rest are in the
    text only."""
    rows = []
    for payer, payee, amount in payments[: MAX_BUTTONS - taken]:
        line = f"{payer} → {payee} {amount}"
        if len(line) <= COPY_TEXT_LIMIT:
            rows.append((Button("📋 " + line, copy=line),))
    return tuple(rows)


def stake_set(_: Gettext, v: StakeSet) -> Out:
    return Out(stake_text(_, v))


def archive_buttons(
    _: Gettext, season: int, season_id: int | None
) -> tuple[tuple[Button, ...], ...]:
    """An admin's settle-up: the button that archives the season (as /reset's confirms)."""
    if season_id is None:
        return ()
    label = _("✅ Settled — archive season {n}", n=season)
    return ((Button(label, reset_data(season_id), style=SUCCESS),),)
