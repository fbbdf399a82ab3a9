#!/bin/bash
# scripts/demo as an ordinary user on the tree root built (LZ_DEMO_NO_SETUP):
# its program and snapshots in a directory of the user's own.
# Usage: demo_test.sh SOURCE_DIR
set -u
SRC=$1
D=$(mktemp -d /tmp/lz-demo.XXXXXX)
trap 'rm -rf "$D"' EXIT
LZ_DEMO_NO_SETUP=1 LZ_DEMO_DIR=$D "$SRC/scripts/demo" > "$D/demo.out" 2>&1
rc=$?
cat "$D/demo.out"
[ $rc = 0 ] || { echo "FAIL: scripts/demo as uid $(id -u) exited $rc"; exit 1; }
grep -q "results equal" "$D/demo.out" || { echo "FAIL: scripts/demo did not say the results are equal"; exit 1; }
echo "PASS: scripts/demo as uid $(id -u)"
