"""The offline console: the real Application over an in-process stand-in for the Bot API, fed
`Speaker: message` lines."""
