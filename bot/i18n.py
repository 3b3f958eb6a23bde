"""Translations (gettext catalogs compiled with Babel), chosen per chat."""

from __future__ import annotations

import gettext
from collections.abc import Callable
from functools import cache
from pathlib import Path

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "jifen"
#: A message translated, HTML-escaped and filled with its parameters: `Renderer._`.
Gettext = Callable[..., str]


def N_(message: str) -> str:
    """Mark a message for extraction without translating it now."""
    return message


@cache
def translator(lang: str) -> gettext.NullTranslations:
    """The catalog of `lang` ("zh" or "en"; English is the source language)."""
    return gettext.translation(DOMAIN, LOCALE_DIR, languages=[lang], fallback=True)
