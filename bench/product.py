"""The product's parts the bench drives, wherever a revision keeps them: before issue 25 `bot/`
was one folder. So `python -m bench.compare --harness` measures an older checkout with this
bench (its newer figures too)."""

from __future__ import annotations

try:
    from bot.console.offline import JSON, Chat, OfflineBotApi, OfflineRequest, User
    from bot.delivery.polling import process_batch
except ImportError:  # an older revision
    from bot.offline import JSON, Chat, OfflineBotApi, OfflineRequest, User  # type: ignore
    from bot.serving import process_batch  # type: ignore

__all__ = ["JSON", "Chat", "OfflineBotApi", "OfflineRequest", "User", "process_batch"]
