"""A group's title is cleaned as names are (`service.names`): a right-to-left override, an
isolate, a zero-width or other control or format character in it never reaches the night's card
(where "group" was drawn "puorg") or /me. Kept clean when the group's commands store it, and
cleaned when shown for a title stored before."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from dataclasses import replace

import pytest
from sqlalchemy import text
from sqlalchemy.engine import Engine

from bot.presentation.card import render_card
from service.context import Actor, Ctx
from service.core import Service
from service.replies import Card, MeView
from service.requests import Me, Summary
from tests.emulator.api import Chat, User
from tests.reliability.harness import BotUnderTest, fresh_id, make_bot

MARKS = ("\u202e", "\u202d", "\u2067", "\u200f", "\u200b", "\x07")


def hidden(title: str | None) -> list[str]:
    return [ch for ch in title or "" if unicodedata.category(ch) in ("Cc", "Cf")]


@pytest.fixture
def bot(sqlite_engine: Engine) -> Iterator[BotUnderTest]:
    yield from make_bot(sqlite_engine)


def evening(bot: BotUnderTest, title: str) -> tuple[Chat, User]:
    chat = Chat(-100_000_000 - fresh_id(), "supergroup", title=title)
    bot.api.add_chat(chat)
    users = [User(70_000 + fresh_id(), n, language_code="en") for n in ("Ann", "Bob", "Cat")]
    for user in users:
        bot.api.set_member(chat.id, user, "member")
    bot.say(users[0], "/new free 斗地主", chat)
    for user in users:
        bot.say(user, "/join", chat)
    bot.say(users[0], "/s Ann+30 Bob-10 Cat", chat)
    return chat, users[0]


def answer(bot: BotUnderTest, chat_id: int, user: User, request: object) -> object:
    service: Service = bot.app.bot_data["service"]
    ctx = Ctx(chat_id=chat_id, actor=Actor(user.id, user.first_name))
    return service.answer(ctx, request).reply  # type: ignore[arg-type]


@pytest.mark.parametrize("mark", MARKS, ids=lambda ch: f"U+{ord(ch):04X}")
def test_a_title_is_stored_and_drawn_without_control_characters(
    bot: BotUnderTest, mark: str
) -> None:
    chat, ann = evening(bot, f"our {mark}group")
    card = answer(bot, chat.id, ann, Summary())
    assert isinstance(card, Card)
    assert card.title == "our group"
    with bot.engine.connect() as conn:
        stored = conn.execute(text("SELECT title FROM chat WHERE id = :id"), {"id": chat.id})
        assert hidden(stored.scalar_one()) == []
    drawn = render_card(card, "en")
    assert drawn == render_card(replace(card, title="our group"), "en")
    me = answer(bot, ann.id, ann, Me())
    assert isinstance(me, MeView) and [g.title for g in me.groups] == ["our group"]


def test_a_title_stored_before_is_cleaned_when_shown(bot: BotUnderTest) -> None:
    chat, ann = evening(bot, "our group")
    with bot.engine.begin() as conn:
        conn.execute(
            text("UPDATE chat SET title = :t WHERE id = :id"),
            {"t": "our \u202egroup", "id": chat.id},
        )
    card = answer(bot, chat.id, ann, Summary())
    assert isinstance(card, Card) and card.title == "our group"
    me = answer(bot, ann.id, ann, Me())
    assert isinstance(me, MeView) and [g.title for g in me.groups] == ["our group"]
