"""The one way to the data: every question a use case or a view asks, as a statement built once
on the models' tables (SQLAlchemy Core on `Model.__table__`), run on the caller's connection."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import Connection, Result
from sqlalchemy.sql.dml import Insert
from sqlmodel import SQLModel

M = TypeVar("M", bound=SQLModel)


def shaped(model: type[M], table: Table, values: Sequence[Any]) -> M:
    """The row `values` (the table's columns in order, as `select(table)` reads them) as the
    model's row type. Rows read back are the database's, typed by the columns' types: they are
    not validated again (pydantic's `model_construct`)."""
    return model.model_construct(**dict(zip(table.c.keys(), values, strict=True)))


def first(model: type[M], result: Result[Any]) -> M | None:
    """A statement's first row (its columns named as the model's fields), or None."""
    row = result.first()
    return None if row is None else model.model_construct(**row._mapping)


def every(model: type[M], result: Result[Any]) -> list[M]:
    """A statement's rows (their columns named as the model's fields)."""
    return [model.model_construct(**row._mapping) for row in result]


class Upsert:
    """An INSERT … ON CONFLICT statement in each dialect's own form (both have one)."""

    def __init__(self, table: Table, build: Callable[[Any], Insert]) -> None:
        self._by_dialect = {
            "sqlite": build(sqlite.insert(table)),
            "postgresql": build(postgresql.insert(table)),
        }

    def of(self, db: Connection) -> Insert:
        return self._by_dialect[db.dialect.name]
