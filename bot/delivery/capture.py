"""Bot API calls captured while a webhook update is handled (see `bot.delivery.outbox`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Call:
    chat_id: int | None
    method: str
    payload: dict[str, Any]


_calls: ContextVar[list[Call] | None] = ContextVar("jifen_outbox_calls", default=None)


@contextlib.contextmanager
def capturing() -> Iterator[list[Call]]:
    """The calls made by the code run inside, captured (and answered with stand-ins)."""
    calls: list[Call] = []
    token = _calls.set(calls)
    try:
        yield calls
    finally:
        _calls.reset(token)


@contextlib.contextmanager
def direct() -> Iterator[None]:
    """Calls inside go straight to Telegram even while capturing (a notice that must go out
    though the update failed and its captured calls are dropped)."""
    token = _calls.set(None)
    try:
        yield
    finally:
        _calls.reset(token)


def current() -> list[Call] | None:
    """Where calls go now: a list while capturing, else None (sent at once)."""
    return _calls.get()
