"""`jifen run | console | migrate`: the bot, the offline console, the schema upgrade."""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import sys
from pathlib import Path
from urllib.parse import urlsplit

from bot import dbfile
from bot.app import build_application
from bot.delivery import polling
from bot.ptb_types import AnyApplication
from bot.settings import InvalidSettings, Settings
from storage.backup import BackupError, backup, restore
from storage.db import make_engine
from storage.schema_head import ensure_schema

log = logging.getLogger("jifen")


class RedactingFormatter(logging.Formatter):
    """Keeps the bot token out of every log line, tracebacks included (Bot API URLs and some
    errors contain it), and the Mini App's launch data (an open page's stream has it in its
    URL's query: `init=`)."""

    LAUNCH_DATA = re.compile(r"([?&]init=)[^&\s'\"]*")

    def __init__(self, token: str) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.secrets = [s for s in (token, token.partition(":")[2]) if len(s) >= 8]

    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        for secret in self.secrets:
            text = text.replace(secret, "<token>")
        return self.LAUNCH_DATA.sub(r"\1<launch data>", text)


def setup_logging(token: str) -> None:
    handler = logging.StreamHandler()
    handler.setFormatter(RedactingFormatter(token))
    logging.basicConfig(level=logging.INFO, handlers=[handler], force=True)
    logging.getLogger("httpx").setLevel(logging.WARNING)
    # A line per answered request: the Mini App's open pages poll every 1.5 s (refusals, 4xx,
    # are still logged).
    logging.getLogger("tornado.access").setLevel(logging.WARNING)


def cmd_run(args: argparse.Namespace, config: Settings) -> int:
    if not config.token:
        print("TELEGRAM_BOT_TOKEN is not set: starting the offline console.", file=sys.stderr)
        return cmd_console(args, config)
    setup_logging(config.token)
    try:
        return serve(config)
    except (dbfile.Missing, dbfile.Damaged) as err:
        log.error("not starting: %s", err)
        return 2
    except Exception:  # logged through the redacting formatter, never raw to stderr
        log.exception("the bot stopped")
        return 1


def serve(config: Settings) -> int:
    """Migrate, then poll or serve the webhook until SIGINT/SIGTERM (or until its database
    file is pulled away: then 1)."""
    from bot.delivery import webhook  # `run`'s only (tornado): the console does without them
    from bot.miniapp import server as miniapp

    if (first := dbfile.before_start(config.database_url)) is not None:
        log.warning(first)
    dbfile.hold(config.database_url)
    dbfile.check_intact(config.database_url)
    engine = make_engine(config.database_url)
    ensure_schema(engine)
    dbfile.after_start(config.database_url)
    application = build_application(config, engine=engine)
    if config.webhook_url:
        log.info("webhook mode on %s:%s", config.webhook_listen, config.webhook_port)
        if not config.webhook_secret:
            log.warning("WEBHOOK_SECRET is not set: using a secret derived from the token")
        server = webhook.webhook(
            application,
            listen=config.webhook_listen,
            port=config.webhook_port,
            url_path=urlsplit(config.webhook_url).path.lstrip("/"),
            webhook_url=config.webhook_url,
            secret_token=config.secret_token(),
            more_routes=miniapp.for_bot(application, config),
        )
        asyncio.run(server)
    else:
        log.info("long polling")
        asyncio.run(poll_with_app(application, config))
    return 1 if application.bot_data.get("fatal") else 0


async def poll_with_app(application: AnyApplication, config: Settings) -> None:
    """Long polling; the Mini App (when set up) on JIFEN_APP_LISTEN:JIFEN_APP_PORT meanwhile."""
    from bot.miniapp import server as miniapp

    routes = miniapp.for_bot(application, config)
    if not routes:
        await polling.poll(application)
        return
    async with miniapp.serving(routes, listen=config.app_listen, port=config.app_port):
        log.info("Mini App on %s:%s", config.app_listen, config.app_port)
        await polling.poll(application)


def cmd_console(args: argparse.Namespace, config: Settings) -> int:
    from bot.console.start import run_console_app, set_aside, shown_name

    db = getattr(args, "db", None)
    url = f"sqlite:///{Path(db).resolve()}" if db else config.database_url
    admins = [a.strip() for a in (getattr(args, "admins", "") or "").split(",") if a.strip()]
    if getattr(args, "fresh", False):
        try:
            aside = set_aside(url)
        except ValueError as err:
            print(f"jifen console: {err}", file=sys.stderr)
            return 2
        if aside is not None:
            print(f"jifen console: the old {shown_name(url)} is kept as {aside}", file=sys.stderr)
    app_port = args.app_port if getattr(args, "app", False) else None
    dbfile.hold(url)
    asyncio.run(run_console_app(url, admins, files_dir=config.data_dir / "out", app_port=app_port))
    return 0


def cmd_backup(args: argparse.Namespace, config: Settings) -> int:
    """`jifen backup PATH`: a consistent copy of the SQLite database (pg_dump for PostgreSQL)."""
    try:
        path = backup(config.database_url, args.path)
    except BackupError as err:
        print(f"jifen backup: {err}", file=sys.stderr)
        return 2
    print(f"backup written to {path}")
    return 0


def cmd_restore(args: argparse.Namespace, config: Settings) -> int:
    """`jifen restore PATH`: put a backup in place of the SQLite database (bot stopped)."""
    if dbfile.in_use(config.database_url):
        print(
            "jifen restore: the database is in use (a bot or console runs on it): stop it "
            "first; nothing was changed",
            file=sys.stderr,
        )
        return 2
    try:
        path = restore(args.path, config.database_url)
    except BackupError as err:
        print(f"jifen restore: {err}", file=sys.stderr)
        return 2
    print(f"database restored to {path}; start the bot again")
    return 0


def cmd_migrate(args: argparse.Namespace, config: Settings) -> int:
    engine = make_engine(config.database_url)
    from storage.migrate import upgrade  # Alembic only here: the bot does not keep it loaded

    upgrade(engine)
    print("database schema is up to date")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="jifen", description="积分 jifen score-keeping bot")
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run the bot (the offline console when no token is set)")
    console = sub.add_parser("console", help="the offline console: 'Speaker: message' lines")
    console.add_argument("--db", help="SQLite file (default: DATABASE_URL's database)")
    console.add_argument("--admins", default="", help="comma-separated names of group admins")
    console.add_argument(
        "--fresh", action="store_true", help="start a new database (the old file is moved aside)"
    )
    console.add_argument(
        "--app", action="store_true", help="also serve the Mini App on 127.0.0.1 (prints its URL)"
    )
    console.add_argument("--app-port", type=int, default=0, help="its port (default: a free one)")
    sub.add_parser("migrate", help="upgrade the database schema")
    saving = sub.add_parser("backup", help="copy the SQLite database to PATH (while the bot runs)")
    saving.add_argument("path", help="the backup file to write")
    restoring = sub.add_parser("restore", help="put a backup in place of the SQLite database")
    restoring.add_argument("path", help="the backup file to restore")
    args = parser.parse_args(argv)
    try:
        config = Settings.load()
    except InvalidSettings as err:  # one line per bad variable, no traceback
        for line in str(err).splitlines():
            print(f"jifen: {line}", file=sys.stderr)
        return 2
    commands = {
        "run": cmd_run,
        "console": cmd_console,
        "migrate": cmd_migrate,
        "backup": cmd_backup,
        "restore": cmd_restore,
    }
    return commands.get(args.command or "run", cmd_run)(args, config)


if __name__ == "__main__":
    sys.exit(main())
