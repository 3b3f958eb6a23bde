"""Container health check of jifen (Dockerfile HEALTHCHECK): exit 0 when healthy, 1 when not.

Webhook mode (WEBHOOK_URL set): the bot's webhook server must answer HTTP on WEBHOOK_PORT (any
status counts: a GET on the webhook path is answered 405). Polling mode: the database must answer
``SELECT 1``. Standard library only for the webhook check; the database check uses jifen's engine.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request
from urllib.parse import urlsplit

TIMEOUT = 5.0


def webhook_ok(url: str) -> bool:
    listen = os.environ.get("WEBHOOK_LISTEN", "0.0.0.0")
    host = "127.0.0.1" if listen in ("", "0.0.0.0", "::") else listen
    if ":" in host:
        host = f"[{host}]"
    port = int(os.environ.get("WEBHOOK_PORT", "8443"))
    local = f"http://{host}:{port}{urlsplit(url).path or '/'}"
    try:
        with urllib.request.urlopen(local, timeout=TIMEOUT):
            return True
    except urllib.error.HTTPError:
        return True  # 405 Method Not Allowed: the server is up
    except OSError as error:
        print(f"webhook server not answering at {local}: {error}", file=sys.stderr)
        return False


def database_ok() -> bool:
    from sqlalchemy import text

    from storage.db import make_engine

    try:
        engine = make_engine()
        with engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        engine.dispose()
        return True
    except Exception as error:  # any failure means unhealthy
        print(f"database not answering: {error}", file=sys.stderr)
        return False


def main() -> int:
    url = os.environ.get("WEBHOOK_URL")
    return 0 if (webhook_ok(url) if url else database_ok()) else 1


if __name__ == "__main__":
    sys.exit(main())
