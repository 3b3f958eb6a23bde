"""A free game's name as the season spells it: `/new free Poker` after `/new free poker` plays
on in the same unit (one section in /standings, not two)."""

from __future__ import annotations

from scoring.games import free_name
from service.unit import Tx
from storage.gateway import ledger as book


def season_spelling(tx: Tx, name: str) -> str:
    """`name`, or the spelling of a free game of the season that differs from it only in case."""
    want = name.casefold()
    for balance in book.balances(tx.db, tx.season.id):
        known = free_name(balance.unit)
        if known and known.casefold() == want:
            return known
    return name
