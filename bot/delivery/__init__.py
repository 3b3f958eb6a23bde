"""Getting updates in and replies out without losing either: polling and the webhook (answered
once the replies are sent), the checks an update passes before the library builds it, chat
locks, transient failures (the database, Telegram unreachable) retried, and every reply cut into
messages one way (`messages`)."""
