"""The language of a reply, decided in one place (`service.language`): the chat's kept one,
else the sender's Telegram language as Chinese or English, else English."""

from __future__ import annotations

import pytest

from service.language import LANGUAGES, of_telegram, shown


@pytest.mark.parametrize(
    ("code", "lang"),
    [("zh", "zh"), ("zh-hans", "zh"), ("ZH-TW", "zh"), ("en", "en"), ("de", "en"), ("", None)],
)
def test_a_telegram_code_is_chinese_or_english(code: str, lang: str | None) -> None:
    assert of_telegram(code) == lang
    assert of_telegram(None) is None


def test_the_chat_language_comes_first_then_the_sender_then_english() -> None:
    assert shown("en", "zh-hans") == "en"
    assert shown("zh", "en") == "zh"
    assert shown(None, "zh-hans") == "zh"
    assert shown(None, "pt-br") == "en"
    assert shown(None, None) == "en"
    assert shown("xx", "zh") == "zh"  # not one of jifen's: the sender's
    assert {shown(None, code) for code in ("zh", "en", None, "ru")} == set(LANGUAGES)
