"""Fixtures of the reliability suite: the instrumented bot on SQLite (and PostgreSQL)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy.engine import Engine

from tests.conftest import migrated
from tests.reliability.harness import BotUnderTest, make_bot


@pytest.fixture(scope="module")
def module_engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Engine]:
    """A migrated SQLite database shared by one test module (tests use fresh chat ids)."""
    with migrated(f"sqlite:///{tmp_path_factory.mktemp('reliability')}/bot.sqlite3") as engine:
        yield engine


@pytest.fixture(scope="module")
def module_bot(module_engine: Engine) -> Iterator[BotUnderTest]:
    """One started bot per module over its own fake Bot API, flood guard off."""
    yield from make_bot(module_engine)
