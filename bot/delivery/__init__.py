"""Getting updates in and replies out without losing either: polling and the webhook, the
checks an update passes before the library builds it, chat locks, transient database failures
retried, every reply cut into messages one way (`messages`), and the webhook's replies sent
after its answer (the outbox)."""
