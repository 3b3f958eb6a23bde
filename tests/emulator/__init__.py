"""The Bot API emulator of the tests (in-process and over HTTP)."""
