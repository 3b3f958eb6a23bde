#!/usr/bin/env bash
# Installs what the tests need into ./.venv, then runs the linters, the type checker and the fast
# tests (those not marked slow: tests/unit and tests/integration but the console process), on
# every core. ./test.sh --all [ARGS] runs every test, one at a time (the slow ones time things).
# Other arguments go to pytest (e.g. ./test.sh -k golden, or ./test.sh -n 0 for one process).
set -euo pipefail
cd "$(dirname "$0")"
selection=(-m "not slow" -n auto)
if [ "${1:-}" = "--all" ]; then
  selection=()
  shift
fi
if [ ! -x .venv/bin/pytest ] || [ pyproject.toml -nt .venv/.installed-test ] \
  || [ requirements-test.lock -nt .venv/.installed-test ]; then
  python3 -m venv .venv
  .venv/bin/pip install -q --upgrade pip
  # The pinned, hashed versions (scripts/lock.sh makes the lock), then the project itself.
  .venv/bin/pip install -q --require-hashes -r requirements-test.lock
  .venv/bin/pip install -q --no-deps -e .
  touch .venv/.installed .venv/.installed-test
fi
if [ -f package.json ] && command -v npm >/dev/null; then npm ci --silent --no-audit --no-fund; fi
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
exec .venv/bin/pytest -q ${selection[@]+"${selection[@]}"} "$@"
