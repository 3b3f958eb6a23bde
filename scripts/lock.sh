#!/usr/bin/env bash
# Regenerates the lock files from pyproject.toml's ranges, with the hash of every file:
#   requirements.lock       the bot (deploy/Dockerfile installs it)
#   requirements-test.lock  the bot and the test tools (test.sh, hence CI, installs it)
# Run it with Python 3.11 (the image's and CI's) after changing a dependency; commit both files.
# Extra arguments go to pip-compile, e.g. --upgrade, or --upgrade-package orjson.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
python3 -m venv "$tools"
"$tools/bin/pip" install -q 'pip-tools>=7.4,<8'
compile=("$tools/bin/pip-compile" -q --generate-hashes --allow-unsafe --strip-extras
  --no-emit-index-url --no-emit-find-links --no-emit-trusted-host --newline LF)
"${compile[@]}" "$@" -o requirements.lock pyproject.toml
"${compile[@]}" "$@" --extra test -o requirements-test.lock pyproject.toml
