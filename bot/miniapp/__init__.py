"""The Telegram Mini App: the table at a glance (standings, chart, history, settle-up, seasons,
the open table) and recording by taps, on the same service as the chat commands.

`auth` checks Telegram's launch data, `members` who may see a chat, `forms` turns a tap's JSON
into the typed request the chat parser would build, `api` answers `/app/api/…`, `server` mounts
it (with `static/`) on the webhook server or a server of its own.
"""
