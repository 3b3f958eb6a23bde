"""Mahjong ("1-2-3-4 base") inputs and results: small frozen dataclasses, seats are ints 0..3."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import cached_property


class Pattern(StrEnum):
    JIHU = "jihu"
    PENGPENGHU = "pengpenghu"
    QIDUI = "qidui"


class WinType(StrEnum):
    """A way to win. Its flags are read several times a hand: each is worked out once per way
    (`cached_property`), then read as a plain attribute."""

    ZIMO = "zimo"
    DIANPAO = "dianpao"
    GANGKAI = "gangkai"
    GANGPAO = "gangpao"
    QIANGGANG = "qianggang"
    QUANQIUPAO = "quanqiupao"
    HAIDILAO = "haidilao"
    HAIDIPAO = "haidipao"
    TIANHU = "tianhu"
    DIHU = "dihu"
    RENHU = "renhu"

    @cached_property
    def on_discard(self) -> bool:
        """Won on another player's tile, and he alone pays: 点炮, 杠上炮, 抢杠 (the robbed
        player), 全求炮, 海底炮, 人胡 (the dealer). Only these let several win at once."""
        return self in _ON_DISCARD

    @cached_property
    def self_drawn(self) -> bool:
        """Won on a tile the winner drew himself: 自摸, 杠上花, 海底捞月, 天胡, 地胡."""
        return not self.on_discard

    @cached_property
    def needs_discarder(self) -> bool:
        """On a discard whose player must be named: all but 人胡, which the dealer pays."""
        return self.on_discard and self is not WinType.RENHU

    @cached_property
    def chained(self) -> bool:
        """杠上炮 or 抢杠: the payer's chain of 1 to 4 kongs doubles the amount per extra kong."""
        return self in (WinType.GANGPAO, WinType.QIANGGANG)

    @cached_property
    def always_concealed(self) -> bool:
        """天胡, 地胡 or 人胡: won before anyone melds, so always 门清 (and never 封胡)."""
        return self in (WinType.TIANHU, WinType.DIHU, WinType.RENHU)


_ON_DISCARD = frozenset(
    {
        WinType.DIANPAO,
        WinType.GANGPAO,
        WinType.QIANGGANG,
        WinType.QUANQIUPAO,
        WinType.HAIDIPAO,
        WinType.RENHU,
    }
)


class KongKind(StrEnum):
    AN = "an"  # concealed 暗杠: 1 from each of the other three
    MING = "ming"  # direct exposed 明杠 from a discard: the discarder pays 1
    BU = "bu"  # added 补杠 on a pung: the discarder of the punged tile pays 1


class Formula(StrEnum):
    """How a win's amount arose from the unit u (rendered by the bot)."""

    SELF_DRAW = "self_draw"  # each of the others pays u
    SMALL_PAO = "small_pao"  # k = 1 on a discard: 2, or 4 if 门清
    BIG_PAO = "big_pao"  # k >= 2 on a discard: 3u/2
    BIG_CANNON = "big_cannon"  # 3u × 2^(chain-1): 杠上炮, 抢杠, 全求炮, 海底炮, 人胡 (chain 1)
    DOUBLE_SELF_DRAW = "double_self_draw"  # each pays 2u: 海底捞月, 天胡, 地胡
    GANGKAI_CONCEALED = "gangkai_concealed"  # each pays 2^n·u + n
    GANGKAI_EXPOSED = "gangkai_exposed"  # the first konged player pays 2^n·3u + n


@dataclass(frozen=True)
class Kong:
    """A completed kong. `source` is whose tile was konged (ming) or originally punged (bu)."""

    konger: int
    kind: KongKind
    source: int | None = None


@dataclass(frozen=True)
class Win:
    """One winner's clause of a hand.

    `discarder` is the single payer of a discard-type win (点炮, 杠上炮, 抢杠: the robbed player,
    全求炮, 海底炮); for 人胡 it may be omitted (the dealer pays). `chain` counts chained kongs for
    杠上炮 and 抢杠; for 杠上花 the chain is `chain_kongs` (in chain order, all by the winner).
    `sealed` is the player the winner sealed (封胡), who carries the liability.
    """

    winner: int
    how: WinType
    discarder: int | None = None
    pattern: Pattern = Pattern.JIHU
    groups: int = 0
    qingyise: bool = False
    menqing: bool = False
    quanqiuren: bool = False
    chain: int = 1
    chain_kongs: tuple[Kong, ...] = ()
    sealed: int | None = None


@dataclass(frozen=True)
class MahjongHand:
    """A finished hand: its wins (none = drawn hand 流局) and the kongs completed outside any
    杠上花 chain, which settle at the end of the hand whatever its outcome."""

    dealer: int
    wins: tuple[Win, ...] = ()
    kongs: tuple[Kong, ...] = ()
    sisuang: bool = False


@dataclass(frozen=True)
class HandValue:
    """The explanation of a win's amount: the normalised hand and the arithmetic behind it."""

    how: WinType
    pattern: Pattern
    groups: int
    qingyise: bool
    menqing: bool  # after normalisation (七对/天胡/地胡/人胡 are always 门清)
    quanqiuren: bool  # after normalisation (a self-drawn 全求人 does not count)
    k: int  # multiplier
    base: int  # b: 4 if 门清 else 3
    unit: int  # u = b × k
    chain: int  # chained kongs (1 where not kong-related)
    formula: Formula
    value: int  # V: what one normal payer pays


@dataclass(frozen=True)
class WinReason:
    """A normal payment for a win."""

    winner: int
    value: HandValue


@dataclass(frozen=True)
class SealedReason:
    """The extra payment of a sealed player (封胡: 双飞, or the whole self-draw / 杠上花)."""

    winner: int
    sealed: int
    sisuang: bool
    value: HandValue


@dataclass(frozen=True)
class KongReason:
    """Kong points (杠分) settled at the end of the hand."""

    kong: Kong


Reason = WinReason | SealedReason | KongReason


@dataclass(frozen=True)
class Transfer:
    """`payer` pays `payee` `amount` points (> 0) for `reason`."""

    payer: int
    payee: int
    amount: int
    reason: Reason


@dataclass(frozen=True)
class MahjongSettlement:
    transfers: tuple[Transfer, ...]
    values: tuple[HandValue, ...]  # one per win, in the order of `MahjongHand.wins`
    next_dealer: int

    def net(self) -> dict[int, int]:
        """Each seat's net result (sums to zero)."""
        out = {seat: 0 for seat in range(4)}
        for t in self.transfers:
            out[t.payer] -= t.amount
            out[t.payee] += t.amount
        return out
