"""A free round's and a transfer's form (bot/miniapp/forms.py) read back, through the parser, as
exactly the amounts and players the boxes held: every amount exact, the balancing player last."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import assume, given
from hypothesis import strategies as st

from bot.miniapp import forms
from service.requests import Pay, PlayerRef, RefKind, Score

SEATS = ["Ann", "Bob", "Cat", "Dan", "Eve", "老王", "小李", "阿张", "Fay", "Gus"]
amounts = st.builds(
    lambda cents, sign: f"{sign}{cents // 100}" + (f".{cents % 100:02d}" if cents % 100 else ""),
    st.integers(0, 99_999_999),
    st.sampled_from("+-"),
)


@given(st.data(), st.integers(2, 10))
def test_a_round_reads_back_as_its_boxes(data: st.DataObject, players: int) -> None:
    seats = SEATS[:players]
    chosen = data.draw(st.lists(st.integers(1, players), min_size=1, max_size=players, unique=True))
    balance = data.draw(
        st.sampled_from([None, *(n for n in range(1, players + 1) if n not in chosen)])
    )
    boxes = [{"player": n, "amount": data.draw(amounts)} for n in chosen]
    form = {"kind": "score", "entries": boxes, "balance": balance}
    text, request = forms.request(form, seats)
    assert isinstance(request, Score) and text.startswith("/s ")
    wanted = [(n, Fraction(box["amount"])) for n, box in zip(chosen, boxes, strict=True)]
    wanted += [(balance, None)] if balance else []
    got = [(_seat(e.player, seats), e.amount) for e in request.entries]
    assert got == wanted


@given(st.integers(1, 4), st.integers(1, 4), amounts)
def test_a_transfer_reads_back_as_its_form(payer: int, payee: int, amount: str) -> None:
    assume(payer != payee)  # the page offers no payer as payee
    form = {"kind": "pay", "payer": payer, "payee": payee, "amount": amount.lstrip("+-")}
    text, request = forms.request(form, SEATS[:4])
    assert isinstance(request, Pay) and text.startswith("/pay ")
    assert (_seat(request.payer, SEATS), _seat(request.payee, SEATS)) == (payer, payee)
    assert request.amount == Fraction(amount.lstrip("+-"))


def _seat(ref: PlayerRef, seats: list[str]) -> int:
    return int(ref.value) if ref.kind is RefKind.SEAT else seats.index(str(ref.value)) + 1
