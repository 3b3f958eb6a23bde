"""Which handler answers a command: one table, the command's canonical name → the handler of
its family. `bot.app` registers a `MessageHandler` per family from it, each with a filter
that matches its names, and one for the commands jifen does not know."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Mapping
from typing import Any

from telegram import Update
from telegram.ext import ContextTypes, filters

from bot.chat import beyond
from bot.chat import handlers as h
from bot.chat.origin import typed_command

Handler = Callable[[Update, ContextTypes.DEFAULT_TYPE], Coroutine[Any, Any, None]]

#: Every command (its canonical name: `bot.commands.parsing`, aliases included) → its handler;
#: the families most typed at a table first (their filters are tried in this order).
COMMANDS: Mapping[str, Handler] = {
    "hu": h.on_mahjong,
    "gang": h.on_mahjong,
    "liuju": h.on_mahjong,
    "r": h.on_510k,
    "s": h.on_free,
    "pay": h.on_free,
    "undo": h.on_undo,
    "new": h.on_tables,
    "join": h.on_tables,
    "seats": h.on_tables,
    "dealer": h.on_tables,
    "players": h.on_tables,
    "iam": h.on_tables,
    "sub": h.on_tables,
    "leave": h.on_tables,
    "rename": h.on_tables,
    "merge": h.on_admin,
    "standings": h.on_views,
    "history": h.on_views,
    "settle": beyond.on_settle,
    "stats": h.on_views,
    "seasons": h.on_views,
    "chart": h.on_files,
    "export": h.on_files,
    "set": h.on_admin,
    "reset": beyond.on_reset,
    "link": h.on_admin,
    "unlink": h.on_admin,
    "app": h.on_app,
    "help": beyond.on_help,
    "rules": h.on_help,
    "me": beyond.on_me,
    "rating": h.on_views,
    "summary": beyond.on_summary,
}
#: A command of no family: an unknown word, a near miss ("/hu-x").
UNKNOWN: Handler = h.on_unknown


class Named(filters.UpdateFilter):
    """A new message with a command a member typed whose name is one of `names` (None: a
    command jifen does not know)."""

    def __init__(self, names: frozenset[str] | None) -> None:
        super().__init__(name=f"Named({sorted(names) if names else None})")
        self.names = names

    def filter(self, update: Update) -> bool:
        typed = typed_command(update)
        if typed is None:
            return False
        return typed.name is None if self.names is None else typed.name in self.names


def families() -> list[tuple[Handler, frozenset[str]]]:
    """Each handler of the table with the names it answers, in the table's order."""
    names: dict[Handler, set[str]] = {}
    for name, handler in COMMANDS.items():
        names.setdefault(handler, set()).add(name)
    return [(handler, frozenset(found)) for handler, found in names.items()]
