"""Reply models → what the chat shows: HTML texts in the chat's language with their buttons,
each type of reply by its family's renderer (`render.RENDERERS`), the /chart picture, the cards
and the /export files."""
