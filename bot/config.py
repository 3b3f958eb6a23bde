"""Settings from the environment (and a .env file when present)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from dotenv import load_dotenv

from storage.db import default_url


def parse_flood(value: str) -> tuple[int, float] | None:
    """`JIFEN_FLOOD`: "20/10" (20 commands per 10 seconds per user and chat) or "off"."""
    if value.strip().lower() in ("0", "off", "false", "no"):
        return None
    limit, _, window = value.partition("/")
    return int(limit), float(window or 10)


@dataclass(frozen=True)
class Config:
    token: str | None
    database_url: str
    api_base_url: str | None = None
    webhook_url: str | None = None
    webhook_secret: str | None = None
    webhook_listen: str = "0.0.0.0"
    webhook_port: int = 8443
    rate_limit: bool = True
    flood: tuple[int, float] | None = None  # (commands, seconds) per user and chat; None: off

    @classmethod
    def from_env(cls) -> Config:
        load_dotenv()
        env = os.environ
        return cls(
            token=env.get("TELEGRAM_BOT_TOKEN") or None,
            database_url=default_url(),
            api_base_url=env.get("TELEGRAM_API_BASE_URL") or None,
            webhook_url=env.get("WEBHOOK_URL") or None,
            webhook_secret=env.get("WEBHOOK_SECRET") or None,
            webhook_listen=env.get("WEBHOOK_LISTEN") or "0.0.0.0",
            webhook_port=int(env.get("WEBHOOK_PORT") or "8443"),
            rate_limit=env.get("JIFEN_RATE_LIMIT", "on").lower() not in ("0", "off", "false"),
            flood=parse_flood(env.get("JIFEN_FLOOD") or "20/10"),
        )
