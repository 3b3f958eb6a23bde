#!/usr/bin/env bash
# Runs jifen: the Telegram bot when TELEGRAM_BOT_TOKEN is set, else the offline console.
# Creates ./.venv and installs the project on first use. Extra arguments go to `jifen`.
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -x .venv/bin/jifen ] || [ pyproject.toml -nt .venv/.installed ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  .venv/bin/pip install -q -e .
  touch .venv/.installed
fi
exec .venv/bin/jifen "$@"
