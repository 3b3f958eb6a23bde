"""Telegram's Mini App launch data (`initData`): checked by its HMAC and its age.

The secret key is HMAC-SHA256(key="WebAppData", msg=bot token); the hash is the HMAC-SHA256 of
the sorted `key=value` lines (all fields but `hash`) under that key
(https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

FUTURE_SKEW = 300.0  # seconds a launch may seem to come from the future (clocks differ)


@dataclass(frozen=True)
class Launch:
    """Who opened the app, and from where."""

    user_id: int
    first_name: str
    username: str | None
    language: str | None
    start_param: str
    auth_date: int


def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def _digest(fields: dict[str, str], token: str) -> str:
    lines = "\n".join(f"{k}={v}" for k, v in sorted(fields.items()))
    return hmac.new(secret_key(token), lines.encode(), hashlib.sha256).hexdigest()


def sign(fields: dict[str, str], token: str) -> str:
    """Launch data as Telegram signs it (the console and the tests)."""
    return urlencode({**fields, "hash": _digest(fields, token)})


def verify(init_data: str, token: str, *, max_age: float, now: float) -> Launch | None:
    """The launch, or None when the data is missing, forged, stale or names no user."""
    try:
        fields = dict(parse_qsl(init_data, keep_blank_values=True, strict_parsing=True))
    except ValueError:
        return None
    given = fields.pop("hash", "")
    if not given or not hmac.compare_digest(given, _digest(fields, token)):
        return None
    try:
        auth_date = int(fields.get("auth_date", ""))
        user = json.loads(fields.get("user", ""))
        user_id = int(user["id"])
    except (ValueError, TypeError, KeyError):
        return None
    if not -FUTURE_SKEW <= now - auth_date <= max_age:
        return None
    return Launch(
        user_id=user_id,
        first_name=str(user.get("first_name") or ""),
        username=user.get("username") or None,
        language=user.get("language_code") or None,
        start_param=fields.get("start_param", ""),
        auth_date=auth_date,
    )
