"""The command language: a message's text (or a button's data) → a typed request of
`service.requests`, in English, pinyin and Chinese. No Telegram here."""
