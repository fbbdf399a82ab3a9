#!/bin/bash
# The fix `lazarus info` names when an ordinary user cannot make the user
# namespace a cr=criu job runs in, run as named. User namespaces are
# switched off the way an administrator would (user.max_user_namespaces = 0),
# but in a user namespace of the test's own, where that limit is its own to
# set: nothing outside changes. Then:
#   1. `lazarus info --mca cr criu` must fail, naming the sysctl and the
#      command that fixes it;
#   2. that command, taken from the message and run, must make criu available;
#   3. `mpirun --mca cr criu` before the fix must stop with the same advice.
# Usage: userns_fix_test.sh BIN_DIR   (as an ordinary user: tests/support/as_user.sh)
set -u
BIN=$1
fail() { echo "FAIL: $*"; exit 1; }
[ "$(id -u)" != 0 ] || fail "run me as an ordinary user (tests/support/as_user.sh)"
T=$(mktemp -d /tmp/lz-userns-fix.XXXXXX)
trap 'rm -rf "$T"' EXIT

# Inside: all capabilities of the test's namespace as ambient ones, so the
# shell may set the limit; the Lazarus commands run without any (setpriv).
unshare --map-current-user --keep-caps bash -s "$BIN" "$T" <<'INNER' || exit 1
BIN=$1 T=$2
fail() { echo "FAIL: $*"; exit 1; }
plain() { setpriv --inh-caps=-all --ambient-caps=-all "$@"; }
echo 0 > /proc/sys/user/max_user_namespaces || fail "cannot set user.max_user_namespaces in the test's namespace"
if plain "$BIN/lazarus" info --mca cr criu > "$T/info1" 2>&1; then
  fail "criu is listed as available with user namespaces switched off:
$(grep -i criu "$T/info1")"
fi
grep -q "user.max_user_namespaces = 0" "$T/info1" || fail "the message does not name the sysctl: $(grep -i criu "$T/info1" | head -3)"
fix=$(grep -o '`sysctl -w [^`]*`' "$T/info1" | head -1 | tr -d '`')
[ -n "$fix" ] || fail "the message names no command: $(grep -i criu "$T/info1" | head -3)"
plain "$BIN/mpirun" -np 1 --mca cr criu --timeout 30 /bin/true > "$T/run1" 2>&1 &&
  fail "mpirun --mca cr criu ran with user namespaces switched off"
grep -q "$fix" "$T/run1" || fail "mpirun does not name the fix \`$fix\`: $(cat "$T/run1")"
echo "named fix: $fix"
$fix > /dev/null || fail "the named fix \`$fix\` failed"
plain "$BIN/lazarus" info --mca cr criu > "$T/info2" 2>&1 || fail "after \`$fix\` criu is still unavailable:
$(grep -i criu "$T/info2" | head -3)"
grep -q "criu .*available" "$T/info2" || fail "after \`$fix\`: $(grep -i criu "$T/info2" | head -3)"
INNER
echo "PASS: the named fix makes cr=criu available to an ordinary user"
