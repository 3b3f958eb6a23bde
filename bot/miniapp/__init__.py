"""The Telegram Mini App: the table at a glance (standings, chart, history, settle-up, seasons,
the open table) and recording by taps, on the same service as the chat commands.

`auth` checks Telegram's launch data, `members` who may see a chat, `forms` turns a tap's JSON
into the request and the command text together, `api` answers `/app/api/…` (a screen in one read
of the service, `Service.app`), `server` mounts it (with `static/`) on the webhook server or a
server of its own.
"""
