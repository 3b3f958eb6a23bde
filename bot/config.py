"""Settings from the environment (and a .env file when present)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from dotenv import load_dotenv

from storage.db import default_url


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
        )
