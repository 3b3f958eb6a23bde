"""Container health check of jifen (Dockerfile HEALTHCHECK): exit 0 when healthy, 1 when not.

Webhook mode (WEBHOOK_URL set): the bot's webhook server must answer HTTP on WEBHOOK_PORT (any
status counts: a GET on the webhook path is answered 405). Polling mode: the database must answer
``SELECT 1`` (a missing SQLite file is unhealthy: the check never creates one). In both, an
SQLite file must have room to write on its disk ("disk full" otherwise: `storage.disk`) and
pass `PRAGMA quick_check` ("database damaged"). The settings are the bot's own
(`bot.settings`: the environment, then `.env`).
"""

from __future__ import annotations

import sys
import urllib.error
import urllib.request
from urllib.parse import urlsplit

from bot.settings import InvalidSettings, Settings

TIMEOUT = 5.0


def webhook_ok(url: str, listen: str, port: int) -> bool:
    host = "127.0.0.1" if listen in ("0.0.0.0", "::") else listen
    if ":" in host:
        host = f"[{host}]"
    local = f"http://{host}:{port}{urlsplit(url).path or '/'}"
    try:
        with urllib.request.urlopen(local, timeout=TIMEOUT):
            return True
    except urllib.error.HTTPError:
        return True  # 405 Method Not Allowed: the server is up
    except OSError as error:
        print(f"webhook server not answering at {local}: {error}", file=sys.stderr)
        return False


def database_ok(url: str) -> bool:
    """`SELECT 1` on the database; a missing SQLite file is unhealthy, never created."""
    from sqlalchemy import text

    from bot.dbfile import sqlite_file
    from storage.db import make_engine

    path = sqlite_file(url)
    if path is not None and not path.is_file():
        print(f"no database at {path}", file=sys.stderr)
        return False
    try:
        engine = make_engine(url, create=False)
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
    except Exception as error:  # any failure means unhealthy
        print(f"database not answering: {error}", file=sys.stderr)
        return False
    return file_ok(url)


def file_ok(url: str) -> bool:
    """An SQLite file with room to write on its disk that passes `PRAGMA quick_check`
    (PostgreSQL: nothing to check here)."""
    from bot.dbfile import quick_check, sqlite_file
    from storage import disk
    from storage.db import make_engine

    path = sqlite_file(url)
    if path is None or not path.is_file():
        return True
    engine = make_engine(url, create=False)
    try:
        room = disk.room(engine)
    except Exception as error:  # any failure means unhealthy
        print(f"database not answering: {error}", file=sys.stderr)
        return False
    finally:
        engine.dispose()
    if room is not None and room.full:
        print(f"disk full: {room}", file=sys.stderr)
        return False
    problem = quick_check(path)
    if problem is not None:
        print(
            f"database damaged: {path} ({problem}); restore the last backup with the bot "
            f"stopped: jifen restore BACKUP",
            file=sys.stderr,
        )
        return False
    return True


def main() -> int:
    try:
        config = Settings.load()
    except InvalidSettings as err:
        print(err, file=sys.stderr)
        return 1
    if config.webhook_url:
        healthy = webhook_ok(config.webhook_url, config.webhook_listen, config.webhook_port)
        healthy = healthy and file_ok(config.database_url)
    else:
        healthy = database_ok(config.database_url)
    return 0 if healthy else 1


if __name__ == "__main__":
    sys.exit(main())
