"""The Telegram handlers: every command of the table (`bot.commands.catalog`) by one handler
that reads it once (`commands`), a reply sent as its type wants (`sending`), a button press by
its action (`buttons`); the /hu wizard and the /s buttons, the flood guard, who may do what."""
