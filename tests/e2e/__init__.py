"""End-to-end tests: the bot as a process against the Bot API emulator."""
