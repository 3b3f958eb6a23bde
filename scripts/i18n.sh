#!/usr/bin/env bash
# Updates the translation catalogs after the messages in the code changed:
#   1. extracts the messages (N_("...") and _("...")) into bot/locale/jifen.pot,
#   2. merges them into bot/locale/<lang>/LC_MESSAGES/jifen.po (created the first time),
#   3. compiles every .po into the .mo the bot loads (tracked in git: no build step to run).
# Then translate the new or changed (fuzzy) entries of the .po files, run this again to
# compile, and check with: pytest tests/unit/test_i18n.py
#
# Deterministic: running it twice, or with no message changes, leaves the files as they were
# (the template's creation date only changes with its messages).
# Uses $PYBABEL, else .venv/bin/pybabel, else pybabel on the PATH.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${PYBABEL:-}" ]; then
  if [ -x .venv/bin/pybabel ]; then PYBABEL=.venv/bin/pybabel; else PYBABEL=pybabel; fi
fi
LOCALES=(zh)
DOMAIN=jifen
DIR=bot/locale
POT=$DIR/$DOMAIN.pot

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 1. Extract. Keep the committed template when only its creation date (or the version of
# jifen or Babel) would change, so that the .po and .mo only change with the messages.
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' pyproject.toml)
"$PYBABEL" -q extract -F babel.cfg -k N_ -k _ --no-location --sort-output \
  --project jifen --version "${version:-0}" \
  --header-comment $'# Translations template for jifen.\n# This file is distributed under the same license as the jifen project.\n#' \
  -o "$tmp/$DOMAIN.pot" bot service scoring storage
volatile='^"(POT-Creation-Date|Project-Id-Version|Generated-By):'
if [ -f "$POT" ] && diff -q <(grep -Ev "$volatile" "$POT") \
  <(grep -Ev "$volatile" "$tmp/$DOMAIN.pot") >/dev/null; then
  echo "$POT: no message changes"
else
  cp "$tmp/$DOMAIN.pot" "$POT"
  echo "$POT: updated ($(grep -c '^msgid ' "$POT") entries including the header)"
fi

# 2. Merge into each language (new entries come untranslated, changed ones fuzzy).
for lang in "${LOCALES[@]}"; do
  po=$DIR/$lang/LC_MESSAGES/$DOMAIN.po
  if [ -f "$po" ]; then
    "$PYBABEL" -q update -i "$POT" -d "$DIR" -D "$DOMAIN" -l "$lang" --ignore-obsolete
  else
    "$PYBABEL" -q init -i "$POT" -d "$DIR" -D "$DOMAIN" -l "$lang"
  fi
done

# 3. Compile. Babel checks the translations of messages that look like %-style templates
# ("error: <file>.po:<line>: ..."), but jifen's templates use str.format ({name}, checked by
# tests/unit/test_i18n.py): a literal "10% for" reads to it as a "% f" placeholder. Those
# false alarms are shown, not fatal; anything else (an unreadable .po, ...) is.
if ! "$PYBABEL" compile --statistics -d "$DIR" -D "$DOMAIN" 2>"$tmp/compile.log"; then
  if grep -Ev -e '^compiling catalog |translated in |errors encountered' \
    -e '^error: .*\.po:[0-9]+: ' "$tmp/compile.log" | grep -q .; then
    cat "$tmp/compile.log" >&2
    exit 1
  fi
  echo "(ignored: babel's %-format check, not relevant to str.format templates)" >>"$tmp/compile.log"
fi
cat "$tmp/compile.log"
