"""Scale tests: several webhook workers on PostgreSQL; concurrent chats on one SQLite file."""
