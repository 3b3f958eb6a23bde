"""The Telegram handlers: a command routed by its name to the handler of its family, a button
press by its action; the /hu wizard and the /s buttons, the flood guard, who may do what."""
