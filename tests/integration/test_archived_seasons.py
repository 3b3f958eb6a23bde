"""Seasons archived before do not slow the current one: after /reset the open table plays on in
a new season, and its statements go straight to that season's events (counted in SQLite's
virtual machine steps, which do not depend on the machine's speed)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import Engine

from service.replies import Recorded, ResetDone, Undone
from tests.conftest import migrated
from tests.integration.helpers import Chat

P4 = ("Wang", "Li", "Zhang", "Chen")
STEP = 50  # VM instructions between two calls of the progress handler


class Steps:
    """Counts the SQLite VM instructions of every connection of an engine."""

    def __init__(self, engine: Engine) -> None:
        self.calls = 0
        event.listen(engine, "checkout", self._watch)

    def _watch(self, dbapi_connection: Any, *_: Any) -> None:
        dbapi_connection.set_progress_handler(self._tick, STEP)

    def _tick(self) -> int:
        self.calls += 1
        return 0  # go on


@contextmanager
def reset_after(tmp_path: Path, hands: int) -> Iterator[tuple[Chat, Steps]]:
    """A chat that played `hands` hands, then /reset; its open table is in the new season."""
    with migrated(f"sqlite:///{tmp_path}/season-{hands}.sqlite3") as engine:
        chat = Chat(engine, -100_777, admins=("Wang",))
        chat.seat("mahjong", *P4)
        for n in range(hands):
            chat.say(P4[n % 4], f"/hu {P4[n % 4]} zimo")
        assert isinstance(chat.say("Wang", "/reset confirm"), ResetDone)
        yield chat, Steps(engine)


def first_hand_and_undo(chat: Chat, steps: Steps) -> int:
    before = steps.calls
    assert isinstance(chat.say("Li", "/hu Li zimo"), Recorded)
    assert isinstance(chat.say("Li", "/undo"), Undone)
    return steps.calls - before


def test_a_new_seasons_first_hand_costs_the_same_after_20_or_400_archived(tmp_path: Path) -> None:
    with reset_after(tmp_path, 20) as (small, small_steps):
        few = first_hand_and_undo(small, small_steps)
    with reset_after(tmp_path, 400) as (big, big_steps):
        many = first_hand_and_undo(big, big_steps)
    # Walking 380 more archived hands would cost thousands of instructions more.
    assert many <= few * 1.1 + 10, (few, many)
