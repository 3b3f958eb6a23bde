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
