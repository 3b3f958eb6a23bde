"""The command language: the command table (`catalog`: every command, one entry each) and a
message's text (or a button's data) → a typed request of `service.requests`, in English, pinyin
and Chinese. No Telegram here."""
