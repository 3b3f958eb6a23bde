"""Settings: each variable's parsing and error message, `.env`, and the CLI's exit on bad values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from bot.settings import InvalidSettings, Settings
from storage.db import make_engine

ROOT = Path(__file__).resolve().parents[2]
VARIABLES = [str(f.validation_alias) for f in Settings.model_fields.values()]


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No jifen variable set, and a working directory without `.env`."""
    for name in VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def load(**env: str) -> Settings:
    for name, value in env.items():
        os.environ[name] = value
    return Settings.load()


def test_defaults() -> None:
    s = load()
    assert s.token is None and s.api_base_url is None
    assert s.webhook_url is None and s.webhook_secret is None
    assert s.data_dir == Path("data")
    assert s.database_url == "sqlite:///data/jifen.sqlite3"
    assert (s.webhook_listen, s.webhook_port) == ("0.0.0.0", 8443)
    assert s.rate_limit is True
    assert s.flood == (20, 10.0)


@pytest.mark.parametrize(
    ("env", "field", "value"),
    [
        ({"TELEGRAM_BOT_TOKEN": "123456:ABC-def_9"}, "token", "123456:ABC-def_9"),
        ({"JIFEN_DATA_DIR": "/srv/jifen"}, "data_dir", Path("/srv/jifen")),
        (
            {"JIFEN_DATA_DIR": "/srv/jifen"},
            "database_url",
            "sqlite:////srv/jifen/jifen.sqlite3",
        ),
        (
            {"JIFEN_DATA_DIR": "/srv/jifen", "DATABASE_URL": "postgresql://u@h/db"},
            "database_url",
            "postgresql://u@h/db",
        ),
        (
            {"TELEGRAM_API_BASE_URL": "http://127.0.0.1:8081/bot"},
            "api_base_url",
            "http://127.0.0.1:8081/bot",
        ),
        (
            {"WEBHOOK_URL": "https://b.example/telegram/x"},
            "webhook_url",
            "https://b.example/telegram/x",
        ),
        ({"WEBHOOK_SECRET": "a-Z_0" * 2}, "webhook_secret", "a-Z_0a-Z_0"),
        ({"WEBHOOK_LISTEN": "127.0.0.1"}, "webhook_listen", "127.0.0.1"),
        ({"WEBHOOK_PORT": "8080"}, "webhook_port", 8080),
        ({"JIFEN_RATE_LIMIT": "off"}, "rate_limit", False),
        ({"JIFEN_RATE_LIMIT": "No"}, "rate_limit", False),
        ({"JIFEN_RATE_LIMIT": "0"}, "rate_limit", False),
        ({"JIFEN_RATE_LIMIT": "FALSE"}, "rate_limit", False),
        ({"JIFEN_RATE_LIMIT": "on"}, "rate_limit", True),
        ({"JIFEN_RATE_LIMIT": "yes"}, "rate_limit", True),
        ({"JIFEN_FLOOD": "5/2.5"}, "flood", (5, 2.5)),
        ({"JIFEN_FLOOD": " 20 / 10 "}, "flood", (20, 10.0)),
        ({"JIFEN_FLOOD": "off"}, "flood", None),
        ({"JIFEN_FLOOD": "False"}, "flood", None),
        ({"JIFEN_FLOOD": "0"}, "flood", None),
        ({"JIFEN_FLOOD": "", "WEBHOOK_PORT": ""}, "flood", (20, 10.0)),  # empty: the default
    ],
)
def test_parsing(env: dict[str, str], field: str, value: object) -> None:
    assert getattr(load(**env), field) == value


@pytest.mark.parametrize(
    ("name", "bad", "message"),
    [
        (
            "TELEGRAM_BOT_TOKEN",
            "not a token",
            "TELEGRAM_BOT_TOKEN must be the token from @BotFather, like 123456:ABC-DEF1234ghIkl",
        ),
        (
            "DATABASE_URL",
            "jifen.sqlite3",
            "DATABASE_URL must be an SQLAlchemy URL like postgresql://user:password@host/db or "
            "sqlite:///data/jifen.sqlite3",
        ),
        (
            "TELEGRAM_API_BASE_URL",
            "http://127.0.0.1:8081",
            "TELEGRAM_API_BASE_URL must be an http(s) URL ending in /bot like "
            "http://127.0.0.1:8081/bot",
        ),
        (
            "WEBHOOK_URL",
            "bot.example.com/hook",
            "WEBHOOK_URL must be an http(s) URL like https://bot.example.com/telegram/2f9c41",
        ),
        ("WEBHOOK_SECRET", "x" * 257, "WEBHOOK_SECRET must be 1-256 characters of A-Z a-z 0-9 _ -"),
        ("WEBHOOK_SECRET", "a b", "WEBHOOK_SECRET must be 1-256 characters of A-Z a-z 0-9 _ -"),
        ("WEBHOOK_PORT", "https", "WEBHOOK_PORT must be a port number from 1 to 65535"),
        ("WEBHOOK_PORT", "70000", "WEBHOOK_PORT must be a port number from 1 to 65535"),
        (
            "JIFEN_RATE_LIMIT",
            "maybe",
            "JIFEN_RATE_LIMIT must be on or off (also true/false, yes/no, 1/0)",
        ),
        ("JIFEN_FLOOD", "abc", "JIFEN_FLOOD must be N/SECONDS like 20/10, or off"),
        ("JIFEN_FLOOD", "20", "JIFEN_FLOOD must be N/SECONDS like 20/10, or off"),
        ("JIFEN_FLOOD", "0/10", "JIFEN_FLOOD must be N/SECONDS like 20/10, or off"),
        ("JIFEN_FLOOD", "20/0", "JIFEN_FLOOD must be N/SECONDS like 20/10, or off"),
        ("JIFEN_FLOOD", "20/nan", "JIFEN_FLOOD must be N/SECONDS like 20/10, or off"),
        ("JIFEN_FLOOD", "2.5/10", "JIFEN_FLOOD must be N/SECONDS like 20/10, or off"),
    ],
)
def test_error_names_the_variable_and_the_form(name: str, bad: str, message: str) -> None:
    with pytest.raises(InvalidSettings) as caught:
        load(**{name: bad})
    assert str(caught.value) == message


def test_one_line_per_bad_variable_and_never_the_value() -> None:
    with pytest.raises(InvalidSettings) as caught:
        load(TELEGRAM_BOT_TOKEN="123:sec ret", JIFEN_FLOOD="x", WEBHOOK_PORT="x")
    lines = str(caught.value).splitlines()
    assert [line.split()[0] for line in lines] == [
        "TELEGRAM_BOT_TOKEN",
        "WEBHOOK_PORT",
        "JIFEN_FLOOD",
    ]
    assert "sec ret" not in str(caught.value)


def test_dotenv_is_read_and_the_environment_wins(clean: Path) -> None:
    (clean / ".env").write_text("JIFEN_FLOOD=3/60\nWEBHOOK_PORT=9000\n", encoding="utf-8")
    s = load(WEBHOOK_PORT="9001")
    assert (s.flood, s.webhook_port) == ((3, 60.0), 9001)


def test_given_reads_no_environment(clean: Path) -> None:
    (clean / ".env").write_text("WEBHOOK_PORT=9000\n", encoding="utf-8")
    os.environ["JIFEN_FLOOD"] = "off"
    s = Settings.given(database_url="sqlite://", rate_limit=False)
    assert (s.flood, s.webhook_port, s.rate_limit) == ((20, 10.0), 8443, False)
    assert Settings.given(flood=(3, 60.0), token="1:X").flood == (3, 60.0)


def test_cli_exits_with_the_message(capsys: pytest.CaptureFixture[str]) -> None:
    os.environ["JIFEN_FLOOD"] = "abc"
    assert main(["migrate"]) == 2
    assert capsys.readouterr().err == "jifen: JIFEN_FLOOD must be N/SECONDS like 20/10, or off\n"


def test_console_with_db_still_reads_dotenv(
    clean: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (clean / ".env").write_text("JIFEN_RATE_LIMIT=sometimes\n", encoding="utf-8")
    assert main(["console", "--db", str(clean / "c.sqlite3"), "--admins", "A"]) == 2
    assert "JIFEN_RATE_LIMIT must be on or off" in capsys.readouterr().err
    assert not (clean / "c.sqlite3").exists()


def test_process_prints_one_line_and_no_traceback(clean: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    env |= {"PYTHONPATH": str(ROOT), "JIFEN_FLOOD": "20 per 10"}
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli", "run"],
        capture_output=True,
        text=True,
        env=env,
        cwd=clean,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr == "jifen: JIFEN_FLOOD must be N/SECONDS like 20/10, or off\n"
    assert done.stdout == ""


def test_healthcheck_uses_the_same_settings(clean: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    env |= {"PYTHONPATH": str(ROOT), "JIFEN_DATA_DIR": str(clean / "data")}
    check = [sys.executable, str(ROOT / "deploy" / "healthcheck.py")]
    make_engine(f"sqlite:///{clean / 'data' / 'jifen.sqlite3'}").dispose()  # the bot made it
    done = subprocess.run(check, capture_output=True, text=True, env=env, cwd=clean, timeout=120)
    assert done.returncode == 0, done.stderr  # polling mode: the SQLite database answers
    (clean / ".env").write_text("WEBHOOK_PORT=http\n", encoding="utf-8")
    done = subprocess.run(check, capture_output=True, text=True, env=env, cwd=clean, timeout=120)
    assert done.returncode == 1
    assert done.stderr == "WEBHOOK_PORT must be a port number from 1 to 65535\n"


def test_healthcheck_never_creates_a_database(clean: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k not in VARIABLES}
    env |= {"PYTHONPATH": str(ROOT), "JIFEN_DATA_DIR": str(clean / "data")}
    check = [sys.executable, str(ROOT / "deploy" / "healthcheck.py")]
    done = subprocess.run(check, capture_output=True, text=True, env=env, cwd=clean, timeout=120)
    assert done.returncode == 1  # the bot's database is not there: unhealthy
    assert done.stderr == f"no database at {clean / 'data' / 'jifen.sqlite3'}\n"
    assert not (clean / "data").exists()
