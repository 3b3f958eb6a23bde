"""Errors a use case reports to the user: a message template (translated by the bot) and its
parameters. Raised before anything is written, so the transaction changes nothing."""

from __future__ import annotations


def N_(message: str) -> str:
    """Mark a message for extraction; the bot translates it when rendering."""
    return message


class ServiceError(Exception):
    def __init__(self, msgid: str, usage: str = "", **params: object) -> None:
        super().__init__(msgid.format(**params) if params else msgid)
        self.msgid = msgid
        self.usage = usage
        self.params = params


class Forbidden(ServiceError):
    """Only group admins may do this."""
