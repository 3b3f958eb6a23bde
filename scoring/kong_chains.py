"""The kongs recorded during the hand being played, and which of them chain into its wins.

A kong is recorded when it is made (/gang) and paid when the hand ends. A win can take some of
them: a 杠上花 its chain (the winner's latest kongs), a 抢杠 the robbed added kong (cancelled: a
robbed kong is never paid). Every kong no win took settles with the hand, whatever its outcome
(`MahjongHand.kongs`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from scoring.mahjong_model import Kong, KongKind

__all__ = ["PendingKongs"]


class PendingKongs:
    """The kongs of the hand being played, oldest first, and those its wins have taken so far."""

    def __init__(self, recorded: Iterable[Kong]) -> None:
        self.recorded = tuple(recorded)
        self._taken: set[int] = set()  # indexes into `recorded`

    def pending(self, konger: int) -> tuple[Kong, ...]:
        """`konger`'s kongs that no win took, oldest first."""
        return self._kongs(self._of(konger))

    def settling(self) -> tuple[Kong, ...]:
        """The kongs no win took, oldest first: they settle with the hand."""
        return tuple(k for i, k in enumerate(self.recorded) if i not in self._taken)

    def gangkai(self, winner: int, n: int) -> tuple[Kong, ...] | None:
        """The chain of a 杠上花 given by its length: the winner's last `n` kongs, which it takes;
        None (taking nothing) when he has fewer."""
        mine = self._of(winner)
        if len(mine) < n:
            return None
        return self._take(mine[-n:])

    def gangkai_written(self, winner: int, chain: Sequence[Kong]) -> None:
        """A 杠上花 whose chain is written out takes the winner's last kongs if they are the same
        (recorded with /gang as well); otherwise it takes nothing."""
        latest = self._of(winner)[-len(chain) :]
        if self._kongs(latest) == tuple(chain):
            self._take(latest)

    def rob(self, robbed: int, n: int) -> tuple[Kong, ...]:
        """The chain of a 抢杠 on `robbed`: his last `n` kongs, or () when he has fewer or his
        latest is an exposed kong (then the robbed kong was not recorded). His latest kong, when it
        is an added one, is taken: it was recorded before it was robbed."""
        theirs = self._of(robbed)
        if not theirs or self.recorded[theirs[-1]].kind is KongKind.MING:
            return ()
        if self.recorded[theirs[-1]].kind is KongKind.BU:
            self._take(theirs[-1:])
        return self._kongs(theirs[-n:]) if len(theirs) >= n else ()

    def _of(self, konger: int) -> list[int]:
        return [
            i for i, k in enumerate(self.recorded) if k.konger == konger and i not in self._taken
        ]

    def _kongs(self, indexes: Sequence[int]) -> tuple[Kong, ...]:
        return tuple(self.recorded[i] for i in indexes)

    def _take(self, indexes: Sequence[int]) -> tuple[Kong, ...]:
        self._taken.update(indexes)
        return self._kongs(indexes)
