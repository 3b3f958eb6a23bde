"""Reads sent ahead (PostgreSQL): a write's reads answered in the round trip of its chat's lock.

A write locks its chat and reads its prologue (one round trip, `Sql.lock_and_read`), then
reads what its use case needs (the seated players and their balances, the table's last
hands…) before it writes: on PostgreSQL each such read waited for the server once more. The
reads a write made before its first write are kept here, per chat, topic and kind of request;
the next such write sends them with its lock and prologue, and a read it then makes of the
very same statement (SQL and parameters) is answered from there, without a round trip.

That answer is the one the read would get: the server ran it after the lock was taken (it
runs a pipeline's statements in order), in the same transaction, with a snapshot of its own.
Every write of a chat's rows holds the chat's lock, so nothing but this transaction could
have changed them since, and its first write drops every answer not yet taken. A read whose
parameters changed (a new season, other seats) is not asked for: its answer is dropped.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

from storage.sql import ReadKey

KEPT = 4096  # chats × topics × kinds of request remembered (the least recently used go)


class ReadAhead:
    """What the last write of each kind read, per chat and topic (bounded). Writes learn from
    the event loop (the batches) and from worker threads (`Service.answer`, as the Mini App's
    checks call it): changes are made under a lock."""

    def __init__(self, kept: int = KEPT) -> None:
        self._known: OrderedDict[Hashable, tuple[ReadKey, ...]] = OrderedDict()
        self._kept = kept
        self._lock = threading.Lock()

    def reads(self, key: Hashable) -> tuple[ReadKey, ...]:
        """The reads to send ahead for a write of `key`."""
        return self._known.get(key, ())

    def learn(self, key: Hashable, reads: tuple[ReadKey, ...]) -> None:
        """Keep what a write of `key` read before it wrote (`Sql.reads`; PostgreSQL: SQLite has
        no round trips to save). Reads whose parameters cannot be matched (unhashable) are not
        kept."""
        try:
            hash(reads)
        except TypeError:
            reads = ()
        with self._lock:
            self._known.pop(key, None)
            if reads:
                self._known[key] = reads  # the most recently used: last
                if len(self._known) > self._kept:
                    self._known.popitem(last=False)
