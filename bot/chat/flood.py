"""Per-user flood limits on commands and button presses: pure, typed, memory-bounded.

``FloodGuard(limit=20, window=10.0).check(user_id, chat_id)`` answers, for one incoming command
of ``user_id`` in ``chat_id`` (the bot passes the real sender: the user, or the channel a member
posts as — `bot.chat.origin.sender_key`):

- ``ALLOW`` — fewer than ``limit`` commands of this user in this chat were allowed in the last
  ``window`` seconds (a sliding window): handle it;
- ``WARN`` — over the limit, and the first refusal since the user was last allowed: answer once
  with a polite warning;
- ``DROP`` — over the limit and already warned: ignore it silently.

Refused commands do not count against the window, so a user who stops is served again as soon as
the oldest allowed command leaves the window. The guard forgets idle users (nothing allowed in the
last ``window`` seconds) as it goes and never keeps more than ``max_keys`` users, so memory stays
bounded however many users and chats write. No I/O, no Telegram types, no threads: call it from
the event loop only.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

__all__ = ["FloodGuard", "Verdict"]


class Verdict(StrEnum):
    ALLOW = "allow"
    WARN = "warn"
    DROP = "drop"


@dataclass
class _Track:
    """One (chat, user): the times of the commands allowed within the window."""

    allowed: deque[float] = field(default_factory=deque)
    warned: bool = False  # a warning was given since the last allowed command
    last_seen: float = 0.0


class FloodGuard:
    """A sliding-window limit per (chat, user) with one warning per burst."""

    def __init__(
        self,
        limit: int = 20,
        window: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
        *,
        max_keys: int = 50_000,
    ) -> None:
        if limit < 1:
            raise ValueError("limit must be at least 1")
        if window <= 0:
            raise ValueError("window must be positive")
        if max_keys < 1:
            raise ValueError("max_keys must be at least 1")
        self.limit = limit
        self.window = float(window)
        self.max_keys = max_keys
        self._clock = clock
        # Least recently seen first: the idle ones are at the front.
        self._tracks: OrderedDict[tuple[int, int], _Track] = OrderedDict()

    def __len__(self) -> int:
        """How many (chat, user) pairs are remembered now."""
        return len(self._tracks)

    def check(self, user_id: int, chat_id: int) -> Verdict:
        """The verdict for one more command of ``user_id`` in ``chat_id`` now."""
        now = self._clock()
        self._forget_idle(now)
        key = (chat_id, user_id)
        track = self._tracks.get(key)
        if track is None:
            track = self._tracks[key] = _Track()
        else:
            self._tracks.move_to_end(key)
        track.last_seen = now
        horizon = now - self.window
        while track.allowed and track.allowed[0] <= horizon:
            track.allowed.popleft()
        if len(track.allowed) < self.limit:
            track.allowed.append(now)
            track.warned = False
            verdict = Verdict.ALLOW
        elif not track.warned:
            track.warned = True
            verdict = Verdict.WARN
        else:
            verdict = Verdict.DROP
        while len(self._tracks) > self.max_keys:  # a flood of distinct users: oldest go first
            self._tracks.popitem(last=False)
        return verdict

    def retry_after(self, user_id: int, chat_id: int) -> float:
        """Seconds until ``user_id`` may send a command in ``chat_id`` again (0 if now)."""
        track = self._tracks.get((chat_id, user_id))
        if track is None:
            return 0.0
        now = self._clock()
        live = [t for t in track.allowed if t > now - self.window]
        if len(live) < self.limit:
            return 0.0
        return max(0.0, live[-self.limit] + self.window - now)

    def _forget_idle(self, now: float) -> None:
        """Drop the pairs seen last more than a window ago (nothing of theirs is still counted;
        a warning older than the window is no longer owed either)."""
        horizon = now - self.window
        while self._tracks:
            key, track = next(iter(self._tracks.items()))
            if track.last_seen > horizon:
                break
            del self._tracks[key]
