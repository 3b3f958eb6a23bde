"""The one way to the data: every question a use case or a view asks, as a plain SQL statement
(`storage.sql`) on the connection of the caller's transaction, answered with plain row records
(`storage.rows`). Each statement is written once, here; the caller owns the transaction.

Plain DBAPI because the hand path's budget is a fraction of a millisecond: the same statements
through SQLAlchemy's ORM cost ~20 times more (`bench/RESULTS.md`), and one style for every use
case beats two that must agree. The SQLModel classes (`storage.models`) describe the schema for
Alembic only; the schema fills what a new row does not say (`server_default`s, revision 0004).

By table: `chats` (chat, season, processed_update), `tables` (game_table), `players` (player),
`ledger` (event, transfer, balance), `app_links` (app_link).
"""

from storage.gateway import app_links, chats, ledger, players, tables

__all__ = ["app_links", "chats", "ledger", "players", "tables"]
