"""/rating as a view of the ledger, computed when asked: sittings (a table's hands until the next
table opens or play pauses for six hours), placed by net, rated with openskill; an undo changes
what follows. Random evenings are checked against openskill in `test_derived_reads`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

import pytest
from openskill.models import PlackettLuce
from sqlalchemy.engine import Engine

from service import rating
from service.replies import HandView, Info, RatingView, Recorded
from service.requests import Undo
from storage.gateway import ledger, players
from storage.unit_of_work import reading
from tests.integration.helpers import Chat

NAMES = ("老王", "小李", "阿张", "Chen")
HANDS = ("/hu 1 zimo", "/hu 2 pao 3", "/hu 3 zimo pph", "/hu 4 pao 1 qys", "/liuju", "/hu 1 pao 2")


class Clock:
    """The ledger's clock, moved by hand (each event is stamped by `storage.gateway.ledger`):
    `step` a record."""

    def __init__(self, step: timedelta = timedelta(minutes=5)) -> None:
        self.now = datetime(2026, 1, 1, 19, 0, tzinfo=UTC)
        self.step = step

    def __call__(self) -> datetime:
        self.now += self.step
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    found = Clock()
    monkeypatch.setattr(ledger, "utcnow", found)
    return found


def openskill_ordinals(sittings: list[dict[str, Fraction]]) -> dict[str, float]:
    """openskill itself: each sitting's players placed by net, ties sharing a place."""
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    for nets in sittings:
        order = sorted(nets, key=lambda n: -nets[n])
        ranks = [1 + sum(nets[m] > nets[n] for m in nets) for n in order]
        teams = [[ratings.get(n) or model.rating()] for n in order]
        for name, [r] in zip(order, model.rate(teams, ranks=ranks), strict=True):
            ratings[name] = r
    return {name: r.ordinal() for name, r in ratings.items()}


def computed(engine: Engine, chat_id: int, unit: str = "mahjong") -> list[rating.Sitting]:
    with reading(engine) as db:
        return rating.sittings(db, chat_id).get(unit, [])


def kept(engine: Engine, chat_id: int) -> dict[str, tuple[float, float, int]]:
    """The ratings after the last sitting, by name."""
    with reading(engine) as db:
        names = {p.id: p.name for p in players.players_of_chat(db, chat_id)}
    return {names[pid]: k for pid, k in computed(engine, chat_id)[-1].ratings.items()}


def ordinals(engine: Engine, chat_id: int) -> dict[str, float]:
    return {name: rating.ordinal(k) for name, k in kept(engine, chat_id).items()}


def net_of(reply: Any) -> dict[str, Fraction]:
    assert isinstance(reply, Recorded), reply
    view: HandView = reply.view
    return {name: Fraction(amount) for name, amount in view.net}


def test_places_share_ties_and_skip() -> None:
    assert rating.places({1: 5, 2: 0, 3: 0, 4: -5}) == [(1, 1), (2, 2), (3, 2), (4, 4)]
    assert rating.places({7: Fraction(1, 2), 3: Fraction(1, 2)}) == [(3, 1), (7, 1)]


def test_off_by_default_and_built_from_the_ledger_when_turned_on(
    engine: Engine, clock: Clock
) -> None:
    chat = Chat(engine, -3001, admins=("老王",))
    chat.seat("mahjong", *NAMES)
    nets = [net_of(chat.say("老王", command)) for command in HANDS[:3]]
    off = chat.say("小李", "/rating")
    assert isinstance(off, Info) and "off" in off.msgid
    chat.say("老王", "/set rating on")
    total = {n: sum((h[n] for h in nets), Fraction(0)) for n in NAMES}
    assert ordinals(engine, -3001) == pytest.approx(openskill_ordinals([total]), abs=1e-12)
    view = chat.say("小李", "/rating")
    assert isinstance(view, RatingView)
    [game] = view.games
    assert [line.name for line in game.lines] == sorted(
        NAMES, key=lambda n: -openskill_ordinals([total])[n]
    )
    assert all(line.sittings == 1 for line in game.lines)


def test_a_pause_of_six_hours_or_a_new_table_starts_a_sitting_and_undo_recomputes(
    engine: Engine, clock: Clock
) -> None:
    chat = Chat(engine, -3002, admins=("老王",))
    chat.say("老王", "/set rating on")
    chat.seat("mahjong", *NAMES)
    sittings: list[dict[str, Fraction]] = []

    def play(commands: tuple[str, ...]) -> list[Any]:
        replies = [chat.say("小李", command) for command in commands]
        nets = [net_of(r) for r in replies]
        sittings.append({n: sum((h[n] for h in nets), Fraction(0)) for n in NAMES})
        return replies

    first_hands = play(HANDS[:3])
    clock.now += timedelta(hours=6, minutes=1)  # play pauses: the next hand is another sitting
    play(HANDS[3:])
    chat.say("老王", "/new mahjong confirm")  # the next table: another sitting
    play(HANDS[1:4])
    assert len(computed(engine, -3002)) == 3
    assert ordinals(engine, -3002) == pytest.approx(openskill_ordinals(sittings), abs=1e-12)
    kept_now = kept(engine, -3002)
    assert all(k[2] == 3 for k in kept_now.values())

    # An admin undoes the first sitting's second hand: every later sitting is rated again.
    undone = first_hands[1]
    chat.press("老王", Undo(event_id=undone.view.event_id))
    before = sittings[0]
    sittings[0] = {n: before[n] - net_of(undone)[n] for n in NAMES}
    assert ordinals(engine, -3002) == pytest.approx(openskill_ordinals(sittings), abs=1e-12)
    assert ordinals(engine, -3002) != pytest.approx(
        openskill_ordinals([before, *sittings[1:]]), abs=1e-6
    )
