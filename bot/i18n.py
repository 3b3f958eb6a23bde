"""Translations (gettext catalogs compiled with Babel), chosen per chat."""

from __future__ import annotations


def N_(message: str) -> str:
    """Mark a message for extraction without translating it now."""
    return message
