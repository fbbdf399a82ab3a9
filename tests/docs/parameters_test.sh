#!/usr/bin/env bash
# parameters_test.sh: docs/parameters.md is what the build prints.
#
#   parameters_test.sh BUILD_DIR SOURCE_DIR CRIU_BINARY [--update]
#
# Runs `lazarus info --markdown` (every framework, built-in component and
# parameter; defaults only) and compares it with the committed page: a
# parameter added, renamed or re-documented without the page regenerated
# fails, showing the difference. --update writes the page instead.
# The one default that depends on the machine, the criu binary found or
# built by scripts/setup (CRIU_BINARY, from CMake), is written as a phrase.
set -u
[ $# -ge 3 ] || { echo "usage: parameters_test.sh BUILD_DIR SOURCE_DIR CRIU_BINARY [--update]" >&2; exit 2; }
BUILD=$1 SRC=$2 CRIU=$3 MODE=${4:-check}
PAGE=$SRC/docs/parameters.md
new=$(mktemp) || exit 1
trap 'rm -f "$new"' EXIT
"$BUILD/bin/lazarus" info --markdown > "$new" || { echo "FAIL: lazarus info --markdown failed"; exit 1; }
if [ -n "$CRIU" ]; then
  CRIU="$CRIU" perl -pi -e 's/`\Q$ENV{CRIU}\E`/the criu scripts\/setup found or built/g' "$new"
fi
if [ "$MODE" = --update ]; then
  cp "$new" "$PAGE" && echo "wrote $PAGE"
  exit
fi
if ! diff -u "$PAGE" "$new"; then
  echo "FAIL: docs/parameters.md differs from what this build prints (above: - the page, + the build)."
  echo "Regenerate it: tests/docs/parameters_test.sh $BUILD $SRC '$CRIU' --update"
  exit 1
fi
echo "docs/parameters.md: $(grep -c '^| `' "$PAGE") rows, the same as the build prints"
