"""Validation of mahjong input: a contradiction is refused before anything is computed.

`MAHJONG_ERRORS` maps every `ScoringError.code` raised here to what it means (for translations);
`params` always name the seat(s) or value(s) involved.
"""

from __future__ import annotations

from typing import Final

from scoring.errors import N_, ScoringError
from scoring.mahjong_model import Kong, KongKind, MahjongHand, Pattern, Win, WinType

MAHJONG_ERRORS: Final[dict[str, str]] = {
    "seat_range": N_("a seat is outside 0..3"),
    "pays_himself": N_(
        "a player would pay himself (discarder, kong source or sealed = winner/konger)"
    ),
    "discarder_missing": N_("a win on another player's tile needs the discarder / robbed player"),
    "discarder_self_draw": N_("a self-drawn win has no discarder"),
    "renhu_discarder": N_("人胡 is paid by the dealer: the discarder must be the dealer"),
    "tianhu_not_dealer": N_(
        "天胡 is the dealer's win, and {dealer} deals (a non-dealer's win on the first draw is"
        " 地胡 dihu)"
    ),
    "dihu_dealer": N_("地胡 cannot be the dealer's win"),
    "renhu_dealer": N_("人胡 cannot be the dealer's win"),
    "chain_range": N_("a kong chain has 1 to 4 kongs"),
    "chain_not_applicable": N_("a kong chain given for a win that has none"),
    "chain_mismatch": N_("the chain count does not match the chain's kongs"),
    "gangkai_no_kongs": N_("杠上花 needs the chain's kongs"),
    "chain_konger": N_("every kong of a 杠上花 chain is the winner's"),
    "menqing_exposed_kong": N_("a 门清 hand cannot have an exposed kong in its chain"),
    "rob_konger": N_("the robbed kong chain must be the robbed player's"),
    "rob_concealed": N_("a chain containing a concealed kong cannot be robbed"),
    "rob_not_added": N_("only an added kong (补杠) can be robbed"),
    "kong_source_missing": N_("an exposed or added kong needs the player whose tile was konged"),
    "kong_source_given": N_("a concealed kong has no source"),
    "qidui_groups": N_("七对 has 0 to 3 groups of four"),
    "groups_not_qidui": N_("groups of four count only for 七对"),
    "qidui_quanqiuren": N_("七对 cannot be 全求人"),
    "quanqiuren_menqing": N_("全求人 (four melds exposed) cannot be 门清"),
    "sealed_menqing": N_("封胡 needs three melds off the sealed player: not 门清"),
    "sealed_qidui": N_("封胡 needs three melds off the sealed player: not 七对"),
    "sealed_special": N_("天胡, 地胡 and 人胡 cannot have a sealed player"),
    "multi_win_not_discard": N_("several winners are only possible on one discard"),
    "multi_win_discarder": N_("several winners must win on the same discard"),
    "multi_win_same_winner": N_("a player appears twice among the winners"),
    "sealed_winner": N_("a sealed player cannot win in the same hand"),
    "kong_menqing": N_(
        "门清 was given, but the winner made an exposed or added kong in this hand (/gang ming or "
        "bu): a hand with an exposed kong is not concealed. Leave out mq."
    ),
    "kong_qidui": N_(
        "七对 was given, but the winner made a kong in this hand (/gang): seven pairs hold no "
        "kong. Four equal tiles in 七对 are a group (qidui1…qidui3), not a kong."
    ),
    "kong_special": N_(
        "天胡, 地胡 and 人胡 are won on the first tiles, before any kong, but the winner made a "
        "kong in this hand (/gang)."
    ),
    "kong_quanqiuren": N_(
        "全求人 was given, but the winner made a concealed kong in this hand (/gang an): 全求人 "
        "has every meld from the others."
    ),
}

_GANGKAI, _QIANGGANG = WinType.GANGKAI, WinType.QIANGGANG
_TIANHU, _DIHU, _RENHU = WinType.TIANHU, WinType.DIHU, WinType.RENHU
_QIDUI, _AN, _BU = Pattern.QIDUI, KongKind.AN, KongKind.BU


def _seat(seat: int, role: str) -> None:
    if not 0 <= seat <= 3:
        raise ScoringError(
            "seat_range", f"{role} seat {seat} is outside 0..3", seat=seat, role=role
        )


def check_kong(kong: Kong) -> None:
    """A kong is well formed: seats in range, a source exactly for exposed and added kongs."""
    konger, source = kong.konger, kong.source
    _seat(konger, "konger")
    if kong.kind == _AN:
        if source is not None:
            raise ScoringError(
                "kong_source_given", f"concealed kong by seat {konger} has a source", seat=konger
            )
        return
    if source is None:
        raise ScoringError(
            "kong_source_missing", f"{kong.kind} kong by seat {konger} has no source", seat=konger
        )
    _seat(source, "kong source")
    if source == konger:
        raise ScoringError("pays_himself", f"seat {konger} konged his own tile", seat=konger)


def check_win(win: Win, dealer: int) -> None:
    """One winner's clause is consistent (`dealer` is the hand's dealer)."""
    _seat(dealer, "dealer")
    _check_win(win, dealer)
    _check_own_kongs(win, win.chain_kongs)


def _check_win(win: Win, dealer: int) -> None:
    how, winner, discarder = win.how, win.winner, win.discarder
    _seat(winner, "winner")
    if how.on_discard:
        if discarder is not None:
            _seat(discarder, "discarder")
            if discarder == winner:
                raise ScoringError(
                    "pays_himself", f"winner {winner} is his own discarder", seat=winner
                )
            if how == _RENHU and discarder != dealer:
                raise ScoringError(
                    "renhu_discarder",
                    f"人胡 is paid by the dealer {dealer}, not seat {discarder}",
                    seat=discarder,
                    dealer=dealer,
                )
        elif how != _RENHU:
            raise ScoringError("discarder_missing", f"{how} win needs a discarder", how=str(how))
    elif discarder is not None:
        raise ScoringError(
            "discarder_self_draw", f"self-drawn {how} win has no discarder", how=str(how)
        )
    sealed = win.sealed
    if sealed is not None:
        _seat(sealed, "sealed")
        if sealed == winner:
            raise ScoringError(
                "pays_himself", f"winner {winner} is his own sealed player", seat=winner
            )
    if how.always_concealed:
        _check_special(how, winner, dealer)
    if how.chained or how == _GANGKAI or win.chain != 1 or win.chain_kongs:
        _check_chain(win)
    if win.pattern == _QIDUI or win.groups or win.quanqiuren or win.sealed is not None:
        _check_pattern(win)


def _check_special(how: WinType, winner: int, dealer: int) -> None:
    if how == _TIANHU and winner != dealer:
        raise ScoringError(
            "tianhu_not_dealer", f"天胡 by seat {winner}, not the dealer", seat=winner
        )
    if how == _DIHU and winner == dealer:
        raise ScoringError("dihu_dealer", f"地胡 by the dealer {winner}", seat=winner)
    if how == _RENHU and winner == dealer:
        raise ScoringError("renhu_dealer", f"人胡 by the dealer {winner}", seat=winner)


def _check_chain(win: Win) -> None:
    how, kongs, chain = win.how, win.chain_kongs, win.chain
    for kong in kongs:
        check_kong(kong)
    if how == _GANGKAI:
        _check_gangkai(win)
    elif not how.chained:
        raise ScoringError("chain_not_applicable", f"{how} win has no kong chain", how=str(how))
    elif not 1 <= chain <= 4:
        raise ScoringError("chain_range", f"chain {chain} is outside 1..4", chain=chain)
    elif kongs:
        if how != _QIANGGANG:
            raise ScoringError(
                "chain_not_applicable", f"{how} win takes no chain kongs", how=str(how)
            )
        _check_robbed(win)


def _check_gangkai(win: Win) -> None:
    kongs, chain = win.chain_kongs, win.chain
    if not kongs:
        raise ScoringError(
            "gangkai_no_kongs", f"杠上花 by seat {win.winner} without kongs", seat=win.winner
        )
    if len(kongs) > 4:
        raise ScoringError("chain_range", f"chain of {len(kongs)} kongs", chain=len(kongs))
    if chain not in (1, len(kongs)):
        raise ScoringError("chain_mismatch", f"chain {chain} but {len(kongs)} kongs", chain=chain)
    for kong in kongs:
        if kong.konger != win.winner:
            raise ScoringError(
                "chain_konger",
                f"kong by seat {kong.konger} in the chain of winner {win.winner}",
                seat=kong.konger,
                winner=win.winner,
            )
    if win.menqing and any(kong.kind != _AN for kong in kongs):
        raise ScoringError(
            "menqing_exposed_kong",
            f"门清 hand of seat {win.winner} with an exposed kong in its chain",
            seat=win.winner,
        )


def _check_robbed(win: Win) -> None:
    kongs = win.chain_kongs
    if len(kongs) != win.chain:
        raise ScoringError(
            "chain_mismatch",
            f"chain {win.chain} but {len(kongs)} kongs",
            chain=win.chain,
        )
    for kong in kongs:
        if kong.konger != win.discarder:
            raise ScoringError(
                "rob_konger",
                f"kong by seat {kong.konger} in the chain of robbed seat {win.discarder}",
                seat=kong.konger,
                robbed=win.discarder,
            )
        if kong.kind == _AN:
            raise ScoringError(
                "rob_concealed",
                f"seat {kong.konger}'s chain has a concealed kong: it cannot be robbed",
                seat=kong.konger,
            )
    if kongs[-1].kind != _BU:
        raise ScoringError(
            "rob_not_added",
            f"seat {win.discarder}'s robbed kong is not an added kong (补杠)",
            seat=win.discarder,
        )


def _check_pattern(win: Win) -> None:
    if win.pattern == _QIDUI:
        if not 0 <= win.groups <= 3:
            raise ScoringError("qidui_groups", f"七对 with {win.groups} groups", groups=win.groups)
        if win.quanqiuren:
            raise ScoringError(
                "qidui_quanqiuren", f"七对 of seat {win.winner} marked 全求人", seat=win.winner
            )
    elif win.groups != 0:
        raise ScoringError(
            "groups_not_qidui",
            f"{win.pattern} with {win.groups} groups",
            pattern=str(win.pattern),
            groups=win.groups,
        )
    special = win.how.always_concealed
    if win.quanqiuren and (win.menqing or special):
        raise ScoringError(
            "quanqiuren_menqing", f"全求人 of seat {win.winner} is 门清", seat=win.winner
        )
    if win.sealed is None:
        return
    if win.menqing:
        raise ScoringError("sealed_menqing", "门清 hand with a sealed player", sealed=win.sealed)
    if win.pattern == _QIDUI:
        raise ScoringError("sealed_qidui", "七对 with a sealed player", sealed=win.sealed)
    if special:
        raise ScoringError("sealed_special", f"{win.how} with a sealed player", how=str(win.how))


def check_hand(hand: MahjongHand) -> None:
    """The whole hand is consistent: each clause, the kongs, and several winners together."""
    dealer = hand.dealer
    _seat(dealer, "dealer")
    for kong in hand.kongs:
        check_kong(kong)
    wins = hand.wins
    for win in wins:
        _check_win(win, dealer)
    if len(wins) > 1:
        _check_several(wins, dealer)
    _check_kongs_of_winners(hand)


def _check_several(wins: tuple[Win, ...], dealer: int) -> None:
    payer = wins[0].discarder if wins[0].discarder is not None else dealer
    winners: set[int] = set()
    for win in wins:
        if not win.how.on_discard:
            raise ScoringError(
                "multi_win_not_discard",
                f"{win.how} by seat {win.winner} among several winners",
                how=str(win.how),
                seat=win.winner,
            )
        discarder = win.discarder if win.discarder is not None else dealer
        if discarder != payer:
            raise ScoringError(
                "multi_win_discarder",
                f"several winners on discards by seats {payer} and {discarder}",
                first=payer,
                second=discarder,
            )
        if win.winner in winners:
            raise ScoringError(
                "multi_win_same_winner", f"seat {win.winner} wins twice", seat=win.winner
            )
        winners.add(win.winner)
    for win in wins:
        if win.sealed in winners:
            raise ScoringError(
                "sealed_winner",
                f"seat {win.sealed} is sealed by seat {win.winner} but wins",
                seat=win.sealed,
                by=win.winner,
            )


def winners_kongs(hand: MahjongHand, win: Win) -> tuple[Kong, ...]:
    """The kongs `win`'s winner made in this hand: those settling with it and his 杠上花 chain
    (a 抢杠 chain is the robbed player's)."""
    return tuple(k for k in (*hand.kongs, *win.chain_kongs) if k.konger == win.winner)


def _check_kongs_of_winners(hand: MahjongHand) -> None:
    """Each win agrees with the kongs its winner made in this hand. An exposed or added kong is
    not 门清; seven pairs hold no kong; 天胡, 地胡 and 人胡 come before any kong; 全求人 has no
    concealed kong."""
    kongs = hand.kongs
    for win in hand.wins:
        if kongs or win.chain_kongs:  # `_check_own_kongs` keeps the winner's own
            _check_own_kongs(win, (*kongs, *win.chain_kongs))


def _check_own_kongs(win: Win, kongs: tuple[Kong, ...]) -> None:
    kinds = {k.kind for k in kongs if k.konger == win.winner}
    if kinds:
        code = _kong_contradiction(win, kinds)
        if code is not None:
            raise ScoringError(
                code,
                f"{win.how} win of seat {win.winner} contradicts his kongs ({sorted(kinds)})",
                seat=win.winner,
            )


def _kong_contradiction(win: Win, kinds: set[KongKind]) -> str | None:
    if win.how.always_concealed:
        return "kong_special"
    if win.pattern == _QIDUI:
        return "kong_qidui"
    if win.menqing and kinds - {_AN}:
        return "kong_menqing"
    if win.quanqiuren and _AN in kinds:
        return "kong_quanqiuren"
    return None


def menqing_unsaid(hand: MahjongHand, win: Win) -> bool:
    """门清 was not given though nothing rules it out (no exposed or added kong of the winner,
    not 七对/天胡/地胡/人胡, which are concealed anyway, not 全求人 or 封胡): the hand was scored
    as not concealed, which may be a slip."""
    if win.menqing or win.quanqiuren or win.sealed is not None:
        return False
    if win.how.always_concealed or win.pattern == _QIDUI:
        return False
    return all(k.kind == _AN for k in winners_kongs(hand, win))
