"""The bot's settings: environment variables, then a `.env` file in the working directory.

One reading for every entry point (`jifen ...`, `deploy/healthcheck.py`), checked at start: a bad
value is an `InvalidSettings` naming the variable and the form it needs, one line per variable.
An empty value (``NAME=``) counts as unset. Switches (`JIFEN_RATE_LIMIT`, the `off` of
`JIFEN_FLOOD`) are spelled ``on``/``off``, ``true``/``false``, ``yes``/``no`` or ``1``/``0``, in
any case.
"""

from __future__ import annotations

import hashlib
import hmac
import math
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AfterValidator, BeforeValidator, Field, ValidationError
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

ON = frozenset({"on", "true", "yes", "1"})
OFF = frozenset({"off", "false", "no", "0"})


class InvalidSettings(ValueError):
    """Settings that cannot be used; the message has one line per bad variable."""


def parse_switch(value: object) -> object:
    """A switch: one of `ON` or `OFF` (other values are left to the bool validation)."""
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ON | OFF:
            return word in ON
        raise ValueError("wrong form")
    return value


def parse_flood(value: object) -> object:
    """`JIFEN_FLOOD`: "N/SECONDS" (N commands in SECONDS per member and chat), or off: None."""
    if not isinstance(value, str):
        return value
    text = value.strip().lower()
    if text in OFF:
        return None
    limit, slash, window = text.partition("/")
    if not slash or not limit.strip().isdigit() or int(limit) < 1:
        raise ValueError("wrong form")
    seconds = float(window)  # ValueError when it is not a number
    if not math.isfinite(seconds) or seconds <= 0:
        raise ValueError("wrong form")
    return int(limit), seconds


def check_database_url(url: str) -> str:
    try:
        make_url(url)
    except ArgumentError:
        raise ValueError("wrong form") from None
    return url


def check_http_url(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("wrong form")
    return url


def check_https_url(url: str) -> str:
    if urlsplit(check_http_url(url)).scheme != "https":
        raise ValueError("wrong form")
    return url


def check_api_base_url(url: str) -> str:
    if not check_http_url(url).rstrip("/").endswith("/bot"):
        raise ValueError("wrong form")
    return url


Switch = Annotated[bool, BeforeValidator(parse_switch)]
Port = Annotated[int, Field(ge=1, le=65535, description="a port number from 1 to 65535")]
ListenAddress = Annotated[
    str, Field(description="an address to listen on, like 0.0.0.0 or 127.0.0.1")
]
Flood = Annotated[tuple[int, float] | None, BeforeValidator(parse_flood)]


def _default_url(values: dict[str, Any]) -> str:
    return f"sqlite:///{values['data_dir'] / 'jifen.sqlite3'}"


class Settings(BaseSettings):
    """What the bot is told from outside. Each field's alias is its environment variable and its
    description the form a value must have (the error message says it)."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_ignore_empty=True,
        enable_decoding=False,  # values are text, never JSON
        extra="ignore",
        frozen=True,
        validate_by_name=True,
        validate_by_alias=True,
    )

    token: str | None = Field(
        None,
        validation_alias="TELEGRAM_BOT_TOKEN",
        pattern=r"^\d+:[\w-]+$",
        description="the token from @BotFather, like 123456:ABC-DEF1234ghIkl",
    )
    data_dir: Path = Field(
        Path("data"),
        validation_alias="JIFEN_DATA_DIR",
        description="a folder (the default SQLite file and the console's files)",
    )
    database_url: Annotated[str, AfterValidator(check_database_url)] = Field(
        default_factory=_default_url,
        validation_alias="DATABASE_URL",
        description="an SQLAlchemy URL like postgresql://user:password@host/db or "
        "sqlite:///data/jifen.sqlite3",
    )
    api_base_url: Annotated[str, AfterValidator(check_api_base_url)] | None = Field(
        None,
        validation_alias="TELEGRAM_API_BASE_URL",
        description="an http(s) URL ending in /bot like http://127.0.0.1:8081/bot",
    )
    webhook_url: Annotated[str, AfterValidator(check_http_url)] | None = Field(
        None,
        validation_alias="WEBHOOK_URL",
        description="an http(s) URL like https://bot.example.com/telegram/2f9c41",
    )
    webhook_secret: str | None = Field(
        None,
        validation_alias="WEBHOOK_SECRET",
        pattern=r"^[A-Za-z0-9_-]{1,256}$",
        description="1-256 characters of A-Z a-z 0-9 _ -",
    )
    webhook_listen: ListenAddress = Field("0.0.0.0", validation_alias="WEBHOOK_LISTEN")
    webhook_port: Port = Field(8443, validation_alias="WEBHOOK_PORT")
    rate_limit: Switch = Field(
        True,
        validation_alias="JIFEN_RATE_LIMIT",
        description="on or off (also true/false, yes/no, 1/0)",
    )
    flood: Flood = Field(
        (20, 10.0),
        validation_alias="JIFEN_FLOOD",
        description="N/SECONDS like 20/10, or off",
    )

    app_name: str | None = Field(
        None,
        validation_alias="JIFEN_APP_NAME",
        pattern=r"^[A-Za-z0-9_]{3,30}$",
        description="the Mini App's short name from @BotFather's /newapp (3-30 of A-Z a-z 0-9 _)",
    )
    app_url: Annotated[str, AfterValidator(check_https_url)] | None = Field(
        None,
        validation_alias="JIFEN_APP_URL",
        description="the https URL the Mini App is served at, like https://bot.example.com/app/",
    )
    app_listen: ListenAddress = Field("127.0.0.1", validation_alias="JIFEN_APP_LISTEN")
    app_port: Port = Field(8080, validation_alias="JIFEN_APP_PORT")
    app_max_age: float = Field(
        86400.0,
        validation_alias="JIFEN_APP_MAX_AGE",
        gt=0,
        le=7 * 86400,
        allow_inf_nan=False,
        description="seconds Telegram's launch data stays valid, more than 0 and at most 604800",
    )
    app_streams: int = Field(
        4000,
        validation_alias="JIFEN_APP_STREAMS",
        ge=0,
        le=1_000_000,
        description="the open pages one process streams to, from 0 (every page polls) to 1000000",
    )

    @property
    def app_page(self) -> str | None:
        """Where the page is: `app_url`, else /app/ on the webhook's host."""
        if self.app_url or not self.webhook_url:
            return self.app_url
        parts = urlsplit(self.webhook_url)
        return f"{parts.scheme}://{parts.netloc}/app/"

    def secret_token(self) -> str:
        """The webhook's secret: WEBHOOK_SECRET, else one derived from the token (every worker
        of the bot derives the same; Telegram is told it with setWebhook). A webhook never runs
        without one: a forged update could otherwise act as an anonymous admin."""
        if self.webhook_secret:
            return self.webhook_secret
        token = (self.token or "").encode()
        return hmac.new(token, b"jifen webhook secret", hashlib.sha256).hexdigest()

    @classmethod
    def load(cls, **overrides: Any) -> Settings:
        """The settings from the environment and `.env` (`overrides` win): `InvalidSettings`
        when a value has the wrong form."""
        try:
            return cls(**overrides)
        except ValidationError as error:
            raise InvalidSettings(describe(error)) from None

    @classmethod
    def given(cls, **values: Any) -> Settings:
        """Settings from `values` and the defaults only, the environment unread (tests, the
        offline console's own application)."""
        return _Given(**values)


class _Given(Settings):
    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


def describe(error: ValidationError) -> str:
    """One line per bad variable: its name and the form it needs (never the value: it may be a
    secret)."""
    fields = Settings.model_fields
    by_key = {f.validation_alias: f for f in fields.values()} | dict(fields)
    lines: list[str] = []
    for problem in error.errors():
        if problem["type"] == "default_factory_not_called":  # an earlier field is wrong
            continue
        field = by_key.get(str(problem["loc"][0]) if problem["loc"] else "")
        line = (
            f"{field.validation_alias} must be {field.description}"
            if field
            else f"settings: {problem['msg']}"
        )
        if line not in lines:
            lines.append(line)
    return "\n".join(lines)
