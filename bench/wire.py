"""The request layer of the timed path: sendMessage answered as cheaply as the network would.

``OfflineRequest`` over ``OfflineBotApi`` (the console's stand-in for Telegram) renders every
message sent to plain text, stores it and keeps an outbox, and all of that runs in this process,
on the clock, growing with the reply's markup. Telegram does that work on its own servers. Here
sendMessage gets Telegram's answer without that work (the message with its id, date, chat and
text; no keyboard echoed back), the same for the echo bot and the product; every other call
still goes to the stand-in.
"""

from __future__ import annotations

import json
from typing import Any

from telegram.request import BaseRequest, RequestData

from bench.product import OfflineBotApi, OfflineRequest


class LeanRequest(OfflineRequest):
    """``OfflineRequest`` whose sendMessage is answered directly (counted in ``sent``)."""

    __slots__ = ("_bot_user", "sent")

    def __init__(self, api: OfflineBotApi) -> None:
        super().__init__(api)
        self.sent = 0
        self._bot_user = api.respond("getMe", {})[1]["result"]

    async def do_request(
        self,
        url: str,
        method: str,
        request_data: RequestData | None = None,
        read_timeout: Any = BaseRequest.DEFAULT_NONE,
        write_timeout: Any = BaseRequest.DEFAULT_NONE,
        connect_timeout: Any = BaseRequest.DEFAULT_NONE,
        pool_timeout: Any = BaseRequest.DEFAULT_NONE,
    ) -> tuple[int, bytes]:
        if request_data is None or not url.endswith("/sendMessage"):
            return await super().do_request(
                url, method, request_data, read_timeout, write_timeout, connect_timeout
            )
        params = request_data.parameters
        self.sent += 1
        message = {
            "message_id": self.sent,
            "from": self._bot_user,
            "date": 0,
            "chat": {"id": int(params["chat_id"]), "type": "supergroup"},
            "text": params["text"],
        }
        return 200, json.dumps({"ok": True, "result": message}).encode()
