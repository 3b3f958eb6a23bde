"""The webhook bench's baseline: a bare PTB echo bot served by ``Application.run_webhook``.

``python -m bench.echo_webhook --base-url URL --port N --path P --secret S`` replies to every
command with its text (``reply_text``, no quote: the reply the in-process echo of
``bench/harness.py`` sends). PTB's own webhook server (tornado) answers a POST once the update
is in the application's queue; the handler runs afterwards. It stops on SIGINT/SIGTERM.
"""

from __future__ import annotations

import argparse
import logging

from telegram import Update
from telegram.ext import Application, ContextTypes, MessageHandler, filters

TOKEN = "123:BENCH"


async def echo(update: Update, _context: ContextTypes.DEFAULT_TYPE) -> None:
    message = update.effective_message
    if message is not None and message.text:
        await message.reply_text(message.text, do_quote=False)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="echo_webhook")
    parser.add_argument("--base-url", required=True, help="the Bot API base, ending in /bot")
    parser.add_argument("--listen", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--path", required=True, help="the webhook's path, without a slash")
    parser.add_argument("--secret", required=True)
    parser.add_argument("--token", default=TOKEN)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    app = Application.builder().token(args.token).base_url(args.base_url).build()
    app.add_handler(MessageHandler(filters.COMMAND, echo))
    app.run_webhook(
        listen=args.listen,
        port=args.port,
        url_path=args.path,
        webhook_url=f"http://{args.listen}:{args.port}/{args.path}",
        secret_token=args.secret,
    )


if __name__ == "__main__":
    main()
