"""The user's command reference (docs/commands.md) lists what the parser accepts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.commands import catalog
from bot.commands import words as keywords

REFERENCE = Path(__file__).parents[2] / "docs" / "commands.md"
TEXT = REFERENCE.read_text(encoding="utf-8")
ENGLISH, _, CHINESE = TEXT.partition("\n## 中文\n")


@pytest.mark.parametrize("word", sorted(catalog.WORDS))
def test_every_command_word_is_listed(word: str) -> None:
    assert re.search(rf"/{re.escape(word)}\b", TEXT), f"/{word} is missing from {REFERENCE.name}"


@pytest.mark.parametrize("table", ["HOW", "PATTERNS", "FLAGS", "KONGS", "GAMES", "NEW_OPTIONS"])
def test_every_keyword_meaning_is_listed_in_both_languages(table: str) -> None:
    words_by_meaning: dict[object, list[str]] = {}
    for word, meaning in getattr(keywords, table).items():
        words_by_meaning.setdefault(meaning, []).append(word)
    for meaning, words in words_by_meaning.items():
        for section in (ENGLISH, CHINESE):
            assert any(w in section.lower() for w in words), f"{meaning} ({words})"


@pytest.mark.parametrize(
    "word",
    sorted(
        w for t in (keywords.HOW, keywords.PATTERNS, keywords.FLAGS) for w in t if not w.isascii()
    ),
)
def test_every_chinese_word_of_hu_is_listed_in_both_languages(word: str) -> None:
    alone = re.compile(rf"(?<![\u4e00-\u9fff]){re.escape(word)}(?![\u4e00-\u9fff])")
    for section in (ENGLISH, CHINESE):
        assert alone.search(section), word


@pytest.mark.parametrize("name", sorted(catalog.BY_NAME))
def test_every_command_is_explained_in_both_languages(name: str) -> None:
    for section in (ENGLISH, CHINESE):
        assert f"`/{name}" in section, f"/{name}"
