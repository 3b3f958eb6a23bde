"""A fee (/fee) as the chat shows it: what it was for, who paid it or that the house is owed,
each share, the cent that did not divide, and each player's money (HTML, in the chat's
language, through the renderer's `_`)."""

from __future__ import annotations

from html import escape

from bot.i18n import Gettext
from bot.presentation.numbers import fmt_money
from service.hand_views import FeeView, HandView


def fee_title(_: Gettext, view: HandView) -> str:
    """What /undo and /history call a fee: `fee #5 (台费)`."""
    what = view.detail.what if isinstance(view.detail, FeeView) else ""
    return _("fee #{n} ({what})", n=view.hand_no, what=escape(what))


def fee_lines(_: Gettext, view: HandView, fee: FeeView, quoted: str) -> list[str]:
    """A recorded fee: its title and command, who paid, the shares, each player's money."""
    title = _(
        "Fee #{n}: {what} {amount}",
        n=view.hand_no,
        what=escape(fee.what),
        amount=fmt_money(fee.amount),
    )
    lines = ["🧾 " + title + f" — <i>{quoted}</i>"]
    if fee.paid_by is not None:
        lines.append(
            _("{name} paid it: the others owe them their share.", name=escape(fee.paid_by))
        )
        lines += [
            f"  {escape(p.payer or '?')} → {escape(p.payee or '?')} {fmt_money(p.amount)}"
            for p in view.payments
        ]
    else:
        lines.append(_("Nobody has paid it yet: each owes their share to the house."))
    amounts = {share for _name, share in fee.shares}
    if len(amounts) == 1:
        lines.append(
            _(
                "Shared by {n}: {share} each.",
                n=len(fee.shares),
                share=fmt_money(amounts.pop()),
            )
        )
    else:
        shares = " · ".join(f"{escape(name)} {fmt_money(share)}" for name, share in fee.shares)
        lines.append(_("Shares: {shares}", shares=shares))
    if fee.extra:
        lines.append(
            _(
                "It does not divide to the cent: {names} pay one cent more.",
                names=escape(", ".join(fee.extra)),
            )
        )
    net = " · ".join(
        f"{escape(name)} {'+' if amount > 0 else ''}{fmt_money(amount)}"
        for name, amount in view.net
        if amount
    )
    lines.append(_("In money: {net}", net=net))
    return lines
