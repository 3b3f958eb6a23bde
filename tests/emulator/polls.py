"""The Bot API's polls in the emulator: `sendPoll` (a regular poll, its options as strings or
InputPollOption objects), `stopPoll`, and `answer_poll`, the `poll_answer` update Telegram sends
when a member votes in a poll that is not anonymous (an empty choice: the vote retracted)."""

from __future__ import annotations

import json
from typing import Any

JSON = dict[str, Any]
QUESTION_LIMIT = 300
OPTION_LIMIT = 100


def _bool(value: Any, default: bool) -> bool:
    if value is None:
        return default
    if isinstance(value, str):
        return value.strip().lower() in ("true", "1")
    return bool(value)


class PollsMixin:
    """Mixed into `FakeBotApi`: it provides `_writable`, `_send`, `_bot_message`, `_enqueue`."""

    @property
    def polls(self) -> dict[str, JSON]:
        """Every poll the bot sent, by id: the poll, its chat and message."""
        return self.__dict__.setdefault("_polls", {})  # type: ignore[no-any-return]

    def _m_sendpoll(self, params: JSON) -> JSON:
        from tests.emulator.api import _Raw, bad_request

        state = self._writable(params)  # type: ignore[attr-defined]
        question = str(params.get("question") or "")
        if not question.strip() or len(question) > QUESTION_LIMIT:
            raise bad_request("poll question length must not exceed 300")
        options = params.get("options")
        if isinstance(options, str):
            options = json.loads(options)
        texts = [o if isinstance(o, str) else str(o.get("text", "")) for o in options or []]
        if not 2 <= len(texts) <= 12 or any(not t or len(t) > OPTION_LIMIT for t in texts):
            raise bad_request("poll must have at least 2 option")
        poll_id = str(5_000_000_000_000 + len(self.polls) + 1)
        poll: JSON = {
            "id": poll_id,
            "question": question,
            "options": [
                {"text": t, "voter_count": 0, "persistent_id": str(i)} for i, t in enumerate(texts)
            ],
            "total_voter_count": 0,
            "is_closed": False,
            "is_anonymous": _bool(params.get("is_anonymous"), True),
            "type": str(params.get("type") or "regular"),
            "allows_multiple_answers": _bool(params.get("allows_multiple_answers"), False),
            # Bot API 9.6 / 10.0: re-voting (a regular poll's default), members only
            "allows_revoting": _bool(params.get("allows_revoting"), params.get("type") != "quiz"),
            "members_only": _bool(params.get("members_only"), False),
        }
        raw = _Raw(media_kind="poll", text=question)
        message: JSON = self._send(state, params, raw, {"poll": poll})  # type: ignore[attr-defined]
        self.polls[poll_id] = {
            "poll": poll,
            "chat_id": state.chat.id,
            "message_id": message["message_id"],
            "votes": {},
        }
        return message

    def _m_stoppoll(self, params: JSON) -> JSON:
        from tests.emulator.api import bad_request

        missing = "message with poll to stop not found"
        _key, message, _raw = self._bot_message(params, missing)  # type: ignore[attr-defined]
        poll = message.get("poll")
        if poll is None:
            raise bad_request("message with poll to stop not found")
        if poll["is_closed"]:
            raise bad_request("poll has already been closed")
        poll["is_closed"] = True
        return dict(poll)

    def answer_poll(self, user: Any, poll_id: str, option_ids: list[int]) -> JSON | None:
        """A member votes (or, with no options, retracts): the poll's counts change, and a
        `poll_answer` update is enqueued if the poll is not anonymous. Returns the update."""
        found = self.polls[poll_id]
        poll = found["poll"]
        if poll["is_closed"]:
            raise ValueError("the poll is closed")
        self.users.setdefault(user.id, user)  # type: ignore[attr-defined]
        before = found["votes"].get(user.id, [])
        for i in before:
            poll["options"][i]["voter_count"] -= 1
        for i in option_ids:
            poll["options"][i]["voter_count"] += 1
        found["votes"][user.id] = list(option_ids)
        poll["total_voter_count"] = sum(1 for v in found["votes"].values() if v)
        if poll["is_anonymous"]:
            return None
        answer = {
            "poll_id": poll_id,
            "user": user.to_dict(),
            "option_ids": list(option_ids),
            "option_persistent_ids": [str(i) for i in option_ids],  # Bot API 9.6
        }
        return self._enqueue("poll_answer", answer)  # type: ignore[attr-defined,no-any-return]
