"""Reply models → what the chat shows: HTML texts in the chat's language, buttons, the /chart
picture and the /export files."""
