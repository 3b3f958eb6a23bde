"""Properties of mahjong settlement over generated valid hands (hypothesis)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from hypothesis import given
from hypothesis import strategies as st

from scoring import (
    Formula,
    Kong,
    KongKind,
    MahjongHand,
    Pattern,
    SealedReason,
    Win,
    WinReason,
    WinType,
    hand_value,
    settle_hand,
)

SEATS = st.integers(0, 3)
SPECIAL = {WinType.TIANHU, WinType.DIHU, WinType.RENHU}


def other_than(*seats: int) -> st.SearchStrategy[int]:
    return st.sampled_from([s for s in range(4) if s not in seats])


@st.composite
def kongs(draw: st.DrawFn, konger: int, kinds: tuple[KongKind, ...] = tuple(KongKind)) -> Kong:
    kind = draw(st.sampled_from(kinds))
    source = None if kind == KongKind.AN else draw(other_than(konger))
    return Kong(konger, kind, source)


def fits(menqing: bool, quanqiuren: bool, kind: KongKind) -> bool:
    """A kong of this kind can be the winner's: not exposed in 门清, not concealed in 全求人."""
    return kind == KongKind.AN if menqing else not (quanqiuren and kind == KongKind.AN)


def winner_may_kong(win: Win, kong: Kong) -> bool:
    """`kong`, settling with the hand, does not contradict `win` (scoring refuses those)."""
    if kong.konger != win.winner:
        return True
    if win.how in SPECIAL or win.pattern == Pattern.QIDUI:
        return False
    return fits(win.menqing, win.quanqiuren, kong.kind)


@st.composite
def wins(
    draw: st.DrawFn,
    dealer: int,
    hows: tuple[WinType, ...] = tuple(WinType),
    discarder: int | None = None,
    sealed_only: bool = False,
) -> Win:
    """A valid clause. `discarder` fixes the payer of a discard win (several winners);
    `sealed_only` makes it a clause with a sealed player."""
    if sealed_only:
        hows = tuple(h for h in hows if h not in SPECIAL)
    how = draw(st.sampled_from(hows))
    if how == WinType.TIANHU:
        winner = dealer
    elif how in (WinType.DIHU, WinType.RENHU):
        winner = draw(other_than(dealer))
    else:
        winner = draw(other_than(discarder) if discarder is not None else SEATS)
    payer = None
    if how == WinType.RENHU:
        payer = draw(st.sampled_from([None, dealer]))
    elif how.on_discard:
        payer = discarder if discarder is not None else draw(other_than(winner))
    no_qidui = sealed_only or how == WinType.GANGKAI  # seven pairs hold no kong
    pattern = draw(st.sampled_from([Pattern.JIHU, Pattern.PENGPENGHU] if no_qidui else Pattern))
    menqing = not sealed_only and draw(st.booleans())
    plain = pattern != Pattern.QIDUI and how not in SPECIAL
    quanqiuren = plain and not menqing and draw(st.booleans())
    chain = draw(st.integers(1, 4)) if how in (WinType.GANGPAO, WinType.QIANGGANG) else 1
    chain_kongs: tuple[Kong, ...] = ()
    if how == WinType.GANGKAI:
        kinds = tuple(k for k in KongKind if fits(menqing, quanqiuren, k))
        chain_kongs = tuple(draw(st.lists(kongs(winner, kinds), min_size=1, max_size=4)))
    elif how == WinType.QIANGGANG and payer is not None and draw(st.booleans()):
        exposed = (KongKind.MING, KongKind.BU)
        chain_kongs = tuple(draw(kongs(payer, exposed)) for _ in range(chain - 1))
        chain_kongs += (draw(kongs(payer, (KongKind.BU,))),)
    sealed = None
    if plain and not menqing and (sealed_only or draw(st.booleans())):
        sealed = draw(other_than(winner))
    return Win(
        winner=winner,
        how=how,
        discarder=payer,
        pattern=pattern,
        groups=draw(st.integers(0, 3)) if pattern == Pattern.QIDUI else 0,
        qingyise=draw(st.booleans()),
        menqing=menqing,
        quanqiuren=quanqiuren,
        chain=chain,
        chain_kongs=chain_kongs,
        sealed=sealed,
    )


@st.composite
def hands(draw: st.DrawFn) -> MahjongHand:
    dealer = draw(SEATS)
    count = draw(st.sampled_from([0, 1, 1, 1, 2, 3]))
    clauses: tuple[Win, ...] = ()
    if count == 1:
        clauses = (draw(wins(dealer)),)
    elif count > 1:
        discarder = draw(SEATS)
        winners = draw(st.lists(other_than(discarder), min_size=count, max_size=count, unique=True))
        hows = tuple(how for how in WinType if how.needs_discarder)
        clauses = tuple(replace(draw(wins(dealer, hows, discarder)), winner=w) for w in winners)
        clauses = tuple(
            replace(c, sealed=None) if c.sealed in winners or c.sealed == c.winner else c
            for c in clauses
        )
    return MahjongHand(
        dealer=dealer,
        wins=clauses,
        kongs=tuple(
            k
            for k in draw(st.lists(SEATS.flatmap(kongs), max_size=4))
            if all(winner_may_kong(w, k) for w in clauses)
        ),
        sisuang=draw(st.booleans()),
    )


@st.composite
def single_hands(
    draw: st.DrawFn, hows: tuple[WinType, ...] = tuple(WinType), sealed_only: bool = False
) -> MahjongHand:
    dealer = draw(SEATS)
    win = draw(wins(dealer, hows, sealed_only=sealed_only))
    return MahjongHand(dealer=dealer, wins=(win,))


@given(hands())
def test_settlement_nets_to_zero_with_positive_int_transfers(hand: MahjongHand) -> None:
    settlement = settle_hand(hand)
    assert sum(settlement.net().values()) == 0
    for transfer in settlement.transfers:
        assert transfer.payer != transfer.payee
        assert type(transfer.amount) is int
        assert transfer.amount > 0
    assert len(settlement.values) == len(hand.wins)


@given(hands())
def test_one_transfer_per_payer_payee_and_win_reason(hand: MahjongHand) -> None:
    keys = [
        (t.payer, t.payee, t.reason)
        for t in settle_hand(hand).transfers
        if isinstance(t.reason, WinReason | SealedReason)
    ]
    assert len(keys) == len(set(keys))


@given(hands())
def test_next_dealer(hand: MahjongHand) -> None:
    winners = {win.winner for win in hand.wins}
    keeps = not hand.wins or hand.dealer in winners
    expected = hand.dealer if keeps else (hand.dealer + 1) % 4
    assert settle_hand(hand).next_dealer == expected


@given(hands())
def test_kong_points_do_not_depend_on_the_outcome(hand: MahjongHand) -> None:
    drawn = settle_hand(replace(hand, wins=()))
    full = settle_hand(hand)
    assert full.transfers[len(full.transfers) - len(drawn.transfers) :] == drawn.transfers
    assert sum(t.amount for t in drawn.transfers) == sum(
        1 if k.kind != KongKind.AN else 3 for k in hand.kongs
    )


@given(single_hands((WinType.GANGPAO, WinType.QIANGGANG)))
def test_chain_doubles_the_big_cannon(hand: MahjongHand) -> None:
    win = replace(hand.wins[0], chain_kongs=())
    values = [hand_value(replace(win, chain=n), hand.dealer).value for n in range(1, 5)]
    assert values[1:] == [2 * v for v in values[:-1]]
    base = replace(win, how=WinType.QUANQIUPAO, chain=1)
    assert values[0] == hand_value(base, hand.dealer).value  # chain 1 = plain big cannon


@given(single_hands((WinType.GANGKAI,)))
def test_gangkai_formulas(hand: MahjongHand) -> None:
    win = hand.wins[0]
    n = len(win.chain_kongs)
    zimo = hand_value(replace(win, how=WinType.ZIMO, chain_kongs=()), hand.dealer)
    settlement = settle_hand(replace(hand, wins=(replace(win, sealed=None),)))
    paid: Counter[int] = Counter()
    for transfer in settlement.transfers:
        paid[transfer.payer] += transfer.amount
    if all(k.kind == KongKind.AN for k in win.chain_kongs):
        assert settlement.values[0].formula == Formula.GANGKAI_CONCEALED
        assert paid == {seat: 2**n * zimo.value + n for seat in range(4) if seat != win.winner}
    else:
        first = next(k.source for k in win.chain_kongs if k.kind != KongKind.AN)
        assert settlement.values[0].formula == Formula.GANGKAI_EXPOSED
        assert paid == {first: 2**n * 3 * zimo.value + n}


@given(single_hands(sealed_only=True))
def test_sealed_liability(hand: MahjongHand) -> None:
    win = hand.wins[0]
    unsealed = settle_hand(replace(hand, wins=(replace(win, sealed=None),)))
    normal = sum(t.amount for t in unsealed.transfers)
    liabilities = []
    for sisuang in (False, True):
        settlement = settle_hand(replace(hand, sisuang=sisuang))
        sealed = [t for t in settlement.transfers if isinstance(t.reason, SealedReason)]
        assert [t.payer for t in sealed] == [win.sealed]
        liabilities.append(sealed[0].amount)
        others = [t for t in settlement.transfers if not isinstance(t.reason, SealedReason)]
        if win.how.on_discard:  # 双飞: the discarder pays as usual, the sealed player V too
            assert others == list(unsealed.transfers)
            assert sealed[0].amount == normal * (1 + sisuang)
        else:  # self-drawn: the sealed player alone pays everything
            assert others == []
            assert sealed[0].amount == normal * (1 + sisuang)
    assert liabilities[1] == 2 * liabilities[0]


@given(single_hands())
def test_value_is_what_one_normal_payer_pays(hand: MahjongHand) -> None:
    win = replace(hand.wins[0], sealed=None)
    settlement = settle_hand(replace(hand, wins=(win,)))
    value = settlement.values[0]
    assert value == hand_value(win, hand.dealer)
    assert {t.amount for t in settlement.transfers} == {value.value}
    assert value.unit == value.base * value.k
    assert value.menqing == (value.base == 4)
