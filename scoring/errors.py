"""Typed errors raised for impossible or contradictory input; nothing is half-computed."""

from __future__ import annotations


class ScoringError(ValueError):
    """Input that cannot be scored. `code` is stable (for translations), `params` fill the text."""

    def __init__(self, code: str, message: str, **params: object) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


def N_(message: str) -> str:
    """Mark a message for translation by the bot (scoring itself stays in English)."""
    return message


ECHO = 30  # characters of what was typed that a refusal shows back (as the parser's do)


def echo(typed: str) -> str:
    """What was typed, as a refusal shows it back: at most `ECHO` characters, "…" ending a cut
    (a whole message of tiles would be over Telegram's length)."""
    return typed if len(typed) <= ECHO else typed[: ECHO - 1] + "…"
